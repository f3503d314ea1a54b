// The dashboard's queue panel against the real App on the simulator: the ranked queue per repository with why-skipped.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type E2eWorld, maintainer, repo, startWorld } from "./e2e/support/e2e-world.js";
import { testAdminToken } from "./support/app-harness.js";
import { probeRedis } from "./support/redis.js";

const redisProbe = await probeRedis();
const hostileTitle = `<img src=x onerror="alert('queue')">`;
let world: E2eWorld;

async function session(): Promise<string> {
  const response = await fetch(`${world.app.url}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: testAdminToken }).toString(),
    redirect: "manual",
  });
  return response.headers.get("set-cookie")!.split(";")[0]!;
}

describe.skipIf(!redisProbe.available)("the dashboard's queue panel", () => {
  beforeEach(async () => {
    world = await startWorld({
      issues: [
        { number: 1, title: "Task 1" },
        { number: 2, title: hostileTitle },
        { number: 3, title: "Task 3" },
        { number: 4, title: "Held by a human", assignees: [maintainer.login] },
      ],
    });
  });
  afterEach(() => world.close());

  it("shows each repository's ranked queue next to the fleet, then the skipped issues and why, escaped", async () => {
    const agent = world.agent();
    await agent.claim({ repo, issue: 3, actor: { runtime: "codex", sessionId: "s-3" } });
    world.sim.addIssue(repo, { title: "Urgent", labels: ["p0"], author: maintainer.login });
    await world.sim.flush();
    const cookie = await session();

    const fleet = (await (
      await fetch(`${world.app.url}/dashboard/fleet.json`, { headers: { cookie } })
    ).json()) as { queues: Record<string, unknown>[] };
    expect(fleet.queues).toEqual([
      {
        installationId: 42,
        repo,
        indexed: true,
        queue: [
          { issue: 5, title: "Urgent", rank: 1, reasons: expect.arrayContaining(["priority:p0"]) },
          { issue: 1, title: "Task 1", rank: 2, reasons: expect.any(Array) },
          { issue: 2, title: hostileTitle, rank: 3, reasons: expect.any(Array) },
        ],
        skipped: [
          { issue: 3, reason: "held" },
          { issue: 4, reason: "human" },
        ],
        truncated: false,
        error: null,
      },
    ]);

    for (const path of ["/", "/dashboard/fragment"]) {
      const html = await (await fetch(`${world.app.url}${path}`, { headers: { cookie } })).text();
      expect(html, path).toContain(`<section class="queue" data-repo="${repo}">`);
      const ranked = [...html.matchAll(/data-queue-issue="(\d+)"/g)].map((m) => Number(m[1]));
      const skipped = [...html.matchAll(/data-skipped-issue="(\d+)"/g)].map((m) => Number(m[1]));
      expect(ranked, path).toEqual([5, 1, 2]);
      expect(skipped, path).toEqual([3, 4]);
      expect(html, path).toContain("held — held by a live agent claim");
      expect(html, path).toContain("human — a human holds it");
      expect(html, path).not.toContain(hostileTitle);
      expect(html, path).toContain("&lt;img src=x onerror=");
    }

    // The page refreshes every 2 s; its panels are read at most every 10 s: no GitHub request meanwhile.
    const mark = world.sim.requests.mark();
    await fetch(`${world.app.url}/dashboard/fragment`, { headers: { cookie } });
    await fetch(`${world.app.url}/dashboard/fragment`, { headers: { cookie } });
    expect(world.sim.requests.since(mark)).toEqual([]);

    // An unknown repository filter is ignored (all panels); a known one keeps its own panel.
    const other = await (
      await fetch(`${world.app.url}/dashboard/fragment?repo=octo%2Fother`, { headers: { cookie } })
    ).text();
    expect(other).toContain('data-repo="octo/widgets"');
    const filtered = await (
      await fetch(`${world.app.url}/dashboard/fragment?repo=octo%2Fwidgets`, { headers: { cookie } })
    ).text();
    expect(filtered).toContain('data-repo="octo/widgets"');
  });
});
