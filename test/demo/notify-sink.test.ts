// The demo's notification sink: it prints each delivery it receives as one readable line, never its own secret URL.
import { afterEach, describe, expect, it, vi } from "vitest";
import { type NotifySink, startNotifySink, summaryOf } from "../../scripts/demo/notify-sink.js";
import { Timeline } from "../../scripts/demo/timeline.js";

const b2 = { runtime: "codex", sessionId: "b2", host: "demo" };
const e5 = { runtime: "aider", sessionId: "e5", host: "demo" };

describe("summaryOf", () => {
  it.each([
    [
      "takeover",
      { previous: b2, holder: e5, previousGeneration: 1, generation: 2 },
      "aider/e5 took over from codex/b2 (generation 1 → 2)",
    ],
    [
      "needs-human",
      { holder: e5, blocker: "Which format?", mention: "@alice", generation: 1 },
      'aider/e5 asks for a person: "Which format?" (mentions @alice)',
    ],
    [
      "superseded-pr",
      { pullRequest: 8, headSha: "34ac2e6aaaaaaaaaaaa", previousGeneration: 1, generation: 2 },
      "PR #8 @ 34ac2e6 comes from superseded generation 1 (now 2)",
    ],
    [
      "budget-exhausted",
      { holder: { login: "alice" }, spentUsd: 2.5, limitUsd: 2 },
      "@alice spent $2.5 of $2",
    ],
    [
      "stalled",
      {
        holder: { runtime: "cli", sessionId: "r8" },
        stalledSince: "2026-12-02T10:00:06.000Z",
        lastProgressAt: "2026-12-02T10:00:00.000Z",
        onStall: "reclaimable",
        generation: 1,
      },
      "cli/r8 heartbeats but made no progress since 2026-12-02T10:00:00.000Z (onStall: reclaimable)",
    ],
  ])("%s", (event, data, line) => {
    expect(summaryOf({ event, subject: "octo/widgets#1", data })).toBe(line);
  });
});

describe("startNotifySink", () => {
  let sink: NotifySink | undefined;
  afterEach(async () => {
    await sink?.close();
    vi.restoreAllMocks();
  });

  it("prints a delivery POSTed to its secret path, refuses any other path, and never prints the path", async () => {
    const printed: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    const timeline = new Timeline();
    sink = await startNotifySink(timeline);
    const secretPath = new URL(sink.url).pathname;
    expect(secretPath).toMatch(/^\/hooks\/[0-9a-f]{24}$/);

    const body = JSON.stringify({
      event: "takeover",
      id: "n1",
      at: "2026-12-01T10:00:00Z",
      subject: "octo/widgets#1",
      installationId: 1,
      data: { previous: b2, holder: e5, previousGeneration: 1, generation: 2 },
    });
    const wrong = await fetch(new URL("/hooks/guess", sink.url), { method: "POST", body });
    expect(wrong.status).toBe(404);
    const right = await fetch(sink.url, { method: "POST", body });
    expect(right.status).toBe(204);

    expect(sink.received.map((d) => d.event)).toEqual(["takeover"]);
    expect(timeline.counts.get("notify:takeover")).toBe(1);
    const output = printed.join("");
    expect(output).toContain("notify → sink");
    expect(output).toContain("takeover octo/widgets#1: aider/e5 took over from codex/b2 (generation 1 → 2)");
    expect(output).not.toContain(secretPath.slice("/hooks/".length));
  });
});
