// Review: invariant 11 in check output — text from users (the repository's config file) must be inert there too.
import { afterEach, describe, expect, it } from "vitest";
import { probeRedis } from "../../support/redis.js";
import { type E2eWorld, fleet, repo, shortConfig, startWorld } from "../support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld | undefined;

describe.skipIf(!redisProbe.available)("review: check output", () => {
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("once broke: an unknown key in .github/claim-hold.yml reaches the check summary raw (HTML comment, mention, HTML)", async () => {
    // Anyone who can push a config file (or the org's .github repository) writes this text.
    world = await startWorld({
      config: `${shortConfig}"@alice <img src=x> <!-- everything after this is hidden": 1\n`,
    });
    const { sim } = world;
    const agent = world.agent();
    const branch = "agent/A/1-task-1";
    await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" }, branch });
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "work" });
    sim.openPull({ repo, author: fleet.login, head: branch, title: "Task 1", body: "Closes #1" });
    await sim.flush();
    const run = sim.checkRuns(repo, sha).find((r) => r.name === "claim-hold")!;
    const output = `${run.output.summary ?? ""}\n${run.output.text ?? ""}`;
    expect(output).toContain("claim-hold.yml");
    // Invariant 11: never an HTML comment, an @-mention or raw HTML from user text in check output.
    expect(output).not.toContain("<!--");
    expect(output).not.toMatch(/(?<!\\)<img/);
    expect(output).not.toMatch(/@alice/);
  });
});
