// `npm run demo -- --forge gitea`: the story on the Gitea simulator shows every moment, exits 0 and asks GitHub nothing.
import { afterEach, describe, expect, it, vi } from "vitest";
import { giteaMoments, runGiteaDemo } from "../../scripts/demo/gitea-story.js";
import { Timeline } from "../../scripts/demo/timeline.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the demo on Gitea", () => {
  it("claims, a refused duplicate, heartbeats, a reap, /reclaim and the commit status red then green, with no GitHub request", async () => {
    const printed: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    const timeline = new Timeline();
    const code = await runGiteaDemo({
      timeline,
      store: { choice: { kind: "memory" }, label: "embedded memory store" },
      logLevel: "silent",
    });
    const output = printed.join("");
    vi.restoreAllMocks();

    expect(timeline.violations).toEqual([]);
    expect(code).toBe(0);
    for (const [moment] of giteaMoments) expect(timeline.counts.get(moment), moment).toBeGreaterThan(0);
    // Three direct claims and a claims/next pick, then the reaped issue claimed again: generation 3
    // (the reap ended generation 2's wait).
    expect(timeline.counts.get("claims")).toBe(5);
    expect(timeline.counts.get("picks")).toBe(1);
    for (const issue of [1, 2, 3])
      expect(output).toMatch(new RegExp(`claimed #${issue} → 201, generation 1`));
    expect(output).toMatch(
      /pi\/d4 +next → picked #4 \(rank 1: [^)]*\) → 201, generation 1, branch agent\/d4\/4-/,
    );
    expect(output).toMatch(/aider\/e5 +claim #1 refused: 409 held \(held by a1\)/);
    expect(output).toMatch(/#1: assignees \[fleet-bot\], labels \[agent:claimed\], open/);
    // The fence: red before the attestation, green after it; red again for the holder a person took it from.
    expect(output).toMatch(/PR #5 status claim-hold → failure: Not attested by the current holder/);
    expect(output).toMatch(/PR #5 status claim-hold → success: /);
    expect(output).toMatch(/PR #6 status claim-hold → failure: Superseded holder/);
    expect(output).toMatch(/#2 is @alice's now \(generation 2\)/);
    expect(output).toMatch(/codex\/b2 +heartbeat → 409 superseded by @alice \(generation 2\)/);
    // The silent agent: marked stale, then reaped by the janitor.
    expect(output).toMatch(/janitor +relabel-stale octo\/widgets#3/);
    expect(output).toMatch(/janitor +reap octo\/widgets#3/);
    expect(output).toMatch(/aider\/e5 +claimed #3 → 201, generation 3/);
    expect(output).toMatch(/released #1 \(completed\)/);
    expect(output).toMatch(/released #4 \(handoff\)/);
    expect(output).toMatch(/GitHub requests +0\n/);
  }, 60_000);
});
