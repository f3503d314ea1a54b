// End to end over HTTP on real Redis and the GitHub simulator: an issue that fails three times (two `failed` releases, one reap) lands with a person; a person's `/reclaim release` or label removal makes it claimable again.
import { afterEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import { type E2eWorld, fleet, maintainer, reader, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

afterEach(() => world?.close());

/** Stale after 30 s, reaped after 60 s; three failures trip; the backoff starts at 1 min. */
const config = [
  "taskClasses:",
  "  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }",
  "queue:",
  "  maxFailures: 3",
  "  retryBackoff: 1m",
  "",
].join("\n");

interface Answer {
  status: number;
  body: Record<string, unknown> & {
    error?: string;
    skipped?: Record<string, number>;
    lease?: { id: string; token: string };
  };
}

async function call(
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  token = fleet.token,
): Promise<Answer> {
  const response = await fetch(`${world.app.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Answer["body"] };
}

const claim = (sessionId: string, extra: Record<string, unknown> = {}) =>
  call("POST", "/api/v1/claims", { repo, issue: 1, actor: { runtime: "codex", sessionId }, ...extra });
const next = (sessionId: string) =>
  call("POST", "/api/v1/claims/next", { repo, actor: { runtime: "codex", sessionId } });
const queueView = () => call("GET", `/api/v1/repos/${repo}/queue`, undefined, reader.token);

const appComments = () =>
  world.sim
    .issue(repo, 1)
    .comments.filter((c) => c.author.endsWith("[bot]"))
    .map((c) => c.body);
const summaries = () => appComments().filter((body) => body.startsWith("🧯"));

/** Takes #1 from the queue as `sessionId` and releases it `failed` with `note`. */
async function failByRelease(sessionId: string, note: string) {
  const agent = world.agent();
  const { lease, picked } = await agent.claimNext({ repo, actor: { runtime: "codex", sessionId } });
  expect(picked.issue).toBe(1);
  await world.sim.flush();
  world.app.clock.now += 20_000;
  await agent.release(lease, { outcome: "failed", note });
  await world.sim.flush();
}

describe.skipIf(!redisProbe.available)("the failure breaker through the simulator", () => {
  it("lands an issue that failed three times with a person, once; override takes it; /reclaim release resets it", async () => {
    world = await startWorld({ config, issues: [{ number: 1, title: "Poisoned issue" }] });
    const { sim, app } = world;

    // 1st failure: a release `failed`. The issue backs off 1 min from claims/next; a direct claim is a
    // deliberate choice, which the backoff does not refuse.
    await failByRelease("A", "tests hang on CI");
    expect(summaries()).toEqual([]);
    expect(sim.issue(repo, 1).labels).toEqual([]);
    expect(await next("B")).toMatchObject({
      status: 409,
      body: { error: "queue_empty", skipped: { failing: 1 } },
    });

    // 2nd failure, once the backoff is over and the queue offers it again; the next backoff is 2 min.
    app.clock.now += 60_000;
    await failByRelease("B", "gave up | out of ideas");
    app.clock.now += 60_000;
    expect(await next("C")).toMatchObject({
      status: 409,
      body: { error: "queue_empty", skipped: { failing: 1 } },
    });

    // 3rd failure: the holder goes silent and the janitor reaps it. The same write labels the issue
    // and posts the one summary.
    app.clock.now += 60_000;
    expect(await next("C")).toMatchObject({ status: 201, body: { picked: { issue: 1 } } });
    await sim.flush();
    app.clock.now += 30_000;
    await app.services.janitor.sweep();
    app.clock.now += 30_000;
    const report = await app.services.janitor.sweep();
    expect(report.actions).toEqual([{ subject: `${repo}#1`, action: "reap", reason: expect.any(String) }]);
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
    expect(sim.issue(repo, 1).assignees).toEqual([]);
    const [summary, ...more] = summaries();
    expect(more).toEqual([]);
    expect(summary).toContain(`${repo}#1 failed 3 times in a row`);
    expect(summary).toContain("released `failed`");
    expect(summary).toContain("reaped (heartbeats stopped)");
    expect(summary).toContain("tests hang on CI");
    expect(summary).toContain("gave up \\| out of ideas");
    expect(summary).toContain("agent/");
    expect(summary).toContain("`/reclaim release`");

    // Tripped: out of the queue for good (a day later too), a direct claim refused, whatever the backoff.
    app.clock.now += 24 * 3_600_000;
    expect(await next("D")).toMatchObject({
      status: 409,
      body: { error: "queue_empty", skipped: { failing: 1 } },
    });
    expect(await queueView()).toMatchObject({
      status: 200,
      body: { queue: [], skipped: [{ issue: 1, reason: "failing" }] },
    });
    const refused = await claim("D");
    expect(refused).toMatchObject({ status: 409, body: { error: "failing", failures: 3 } });
    expect(refused.body.message).toContain('"override": true');

    // `override: true` takes it anyway; its handoff counts nothing and writes no second summary.
    const overridden = await claim("D", { override: true });
    expect(overridden).toMatchObject({ status: 201 });
    await sim.flush();
    const agent = world.agent();
    await agent.release(
      { id: overridden.body.lease!.id, token: overridden.body.lease!.token },
      {
        outcome: "handoff",
      },
    );
    await sim.flush();
    expect(summaries()).toHaveLength(1);
    expect(await claim("E")).toMatchObject({ status: 409, body: { error: "failing" } });

    // A maintainer hands it back to the queue: the count is reset, the issue offered and claimable.
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/reclaim release" });
    await sim.flush();
    // The queue view is a shared read, at most 5 s old.
    app.clock.now += 5_000;
    expect(await queueView()).toMatchObject({ status: 200, body: { queue: [{ issue: 1 }], skipped: [] } });
    expect(await next("E")).toMatchObject({ status: 201, body: { picked: { issue: 1 } } });
  });

  it("a person removing agent:needs-human resets the count; the App's or the fleet's own removal does not", async () => {
    world = await startWorld({
      config: config.replace("maxFailures: 3", "maxFailures: 1"),
      issues: [{ number: 1, title: "Poisoned issue" }],
    });
    const { sim } = world;
    await failByRelease("A", "broken");
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
    expect(summaries()).toHaveLength(1);
    expect(await claim("B")).toMatchObject({ status: 409, body: { error: "failing", failures: 1 } });

    // An overridden claim that asks for a person and hands off: the App takes the label off with
    // the ask, which is no person's reset.
    const agent = world.agent();
    const { lease } = await agent.claim({
      repo,
      issue: 1,
      actor: { runtime: "codex", sessionId: "B" },
      override: true,
    });
    await agent.heartbeat(lease, { needsHuman: true, blocker: "which API version?" });
    await sim.flush();
    await agent.release(lease, { outcome: "handoff" });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual([]);
    expect(await claim("C")).toMatchObject({ status: 409, body: { error: "failing", failures: 1 } });

    // The fleet's own account labels it and takes the label off: an agent resets nothing, as it
    // cannot `/reclaim` either.
    sim.assign({ repo, issue: 1, login: fleet.login, labels: ["agent:needs-human"] });
    await sim.flush();
    sim.unassign({ repo, issue: 1, login: fleet.login, labels: ["agent:needs-human"] });
    await sim.flush();
    expect(await claim("C")).toMatchObject({ status: 409, body: { error: "failing", failures: 1 } });

    // A person labels it and takes the label off again: reset.
    sim.assign({ repo, issue: 1, login: maintainer.login, labels: ["agent:needs-human"] });
    await sim.flush();
    sim.unassign({ repo, issue: 1, login: maintainer.login, labels: ["agent:needs-human"] });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual([]);
    expect(await claim("C")).toMatchObject({ status: 201 });
  });
});
