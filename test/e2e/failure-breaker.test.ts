// End to end over HTTP on real Redis and the GitHub simulator: an issue that fails three times (`failed` releases, a reap, a stalled generation taken over) lands with a person; a person's `/reclaim release` or label removal makes it claimable again; a trip GitHub did not take, or one a lowered `maxFailures` calls for, is written by the janitor.
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
    // Still tripped: the handoff's write puts back the label the override claim took off.
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
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

  it("claims/next skips a pick whose breaker tripped after the queue judged it (the claim's own step refuses it)", async () => {
    world = await startWorld({
      config: config.replace("maxFailures: 3", "maxFailures: 1"),
      issues: [{ number: 1, title: "Poisoned issue" }],
    });
    const { sim } = world;
    // The pick judged #1 free; its claim's GitHub read is held while another session's direct claim
    // of #1 fails, tripping the breaker.
    const held = sim.hold({ operation: "SubjectStatus" });
    const picking = next("A");
    await held.arrived;
    const direct = await claim("B");
    expect(direct).toMatchObject({ status: 201 });
    await sim.flush();
    const agent = world.agent();
    await agent.release(
      { id: direct.body.lease!.id, token: direct.body.lease!.token },
      { outcome: "failed" },
    );
    await sim.flush();
    held.release();
    expect(await picking).toMatchObject({
      status: 409,
      body: { error: "queue_empty", skipped: { failing: 1 } },
    });
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
    expect(summaries()).toHaveLength(1);
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
    // the claim and the ask, which is no person's reset; the handoff puts it back (still tripped).
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
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
    expect(summaries()).toHaveLength(1);
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

  /** Stalled after 2 min without progress, taken over while it still heartbeats. */
  const stallConfig = config.replace(
    "author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }",
    "author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s, stallAfter: 2m, onStall: reclaimable }",
  );
  const subjectKey = { installationId: 42, repoId: 1296269, issue: 1 };

  /** `holder` claims #1 and heartbeats without progress until it is stalled; returns its beat. */
  async function claimAndStall(sessionId: string) {
    const agent = world.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId } });
    await world.sim.flush();
    const beat = () => agent.heartbeat(lease, {});
    for (let beats = 0; beats < 13; beats++) {
      world.app.clock.now += 10_000;
      await beat();
    }
    expect(await beat()).toHaveProperty("stalledSince");
    return { lease, beat, agent };
  }

  /** `sessionId` asks to take the stalled #1 over, the holder beats on, and the grace beat passes. */
  async function takeOver(
    sessionId: string,
    beat: () => Promise<unknown>,
    extra: Record<string, unknown> = {},
  ) {
    expect(await claim(sessionId, { takeover: true, ...extra })).toMatchObject({ status: 202 });
    world.app.clock.now += 5_000;
    await beat();
    world.app.clock.now += 5_000;
    const taken = await claim(sessionId, { takeover: true, ...extra });
    await world.sim.flush();
    return taken;
  }

  it("counts a stalled generation taken over; the third failure, a stalled takeover, lands the issue with a person", async () => {
    world = await startWorld({ config: stallConfig, issues: [{ number: 1, title: "Poisoned issue" }] });
    const { sim, app, stores } = world;

    // 1st failure: S stalls, T takes it over (under maxFailures: the takeover proceeds).
    const first = await claimAndStall("S");
    const takeOverAnswer = takeOver("T", first.beat);
    expect(await takeOverAnswer).toMatchObject({ status: 201 });
    expect(await stores.claims.failures(subjectKey)).toMatchObject([{ generation: 1, reason: "stalled" }]);
    expect(summaries()).toEqual([]);
    await expect(first.beat()).rejects.toThrow();

    // 2nd failure: T releases `failed`.
    const taken = await takeOverAnswer;
    app.clock.now += 20_000;
    await world
      .agent()
      .release(
        { id: taken.body.lease!.id, token: taken.body.lease!.token },
        { outcome: "failed", note: "cannot reproduce" },
      );
    await sim.flush();
    expect(await stores.claims.failures(subjectKey)).toHaveLength(2);

    // 3rd failure: after the backoff U claims and stalls; V's takeover trips the breaker. Without
    // override it is refused, the stalled generation ends, and the issue lands with a person.
    app.clock.now += 2 * 60_000;
    const third = await claimAndStall("U");
    const tripped = await takeOver("V", third.beat);
    expect(tripped).toMatchObject({ status: 409, body: { error: "failing", failures: 3 } });
    await expect(third.beat()).rejects.toThrow();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
    expect(sim.issue(repo, 1).assignees).toEqual([]);
    const [summary, ...more] = summaries();
    expect(more).toEqual([]);
    expect(summary).toContain(`${repo}#1 failed 3 times in a row`);
    expect(summary!.match(/stalled and taken over/g)).toHaveLength(2);
    expect(summary).toContain("cannot reproduce");
    expect(await next("W")).toMatchObject({ status: 409, body: { skipped: { failing: 1 } } });
    expect(await claim("W")).toMatchObject({ status: 409, body: { error: "failing" } });
    // A person may still let an agent take it: override.
    expect(await claim("W", { override: true })).toMatchObject({ status: 201 });
  });

  it("a stalled takeover that trips proceeds with override, counted", async () => {
    world = await startWorld({
      config: stallConfig.replace("maxFailures: 3", "maxFailures: 1"),
      issues: [{ number: 1, title: "Poisoned issue" }],
    });
    const held = await claimAndStall("S");
    expect(await takeOver("T", held.beat, { override: true })).toMatchObject({ status: 201 });
    expect(await world.stores.claims.failures(subjectKey)).toMatchObject([
      { generation: 1, reason: "stalled" },
    ]);
    // The subject is held (by the override's claim): its trip waits until that claim ends.
    expect(summaries()).toEqual([]);
  });

  it("writes a trip GitHub did not take at the next janitor run, and only once", async () => {
    world = await startWorld({
      config: config.replace("maxFailures: 3", "maxFailures: 1"),
      issues: [{ number: 1, title: "Poisoned issue" }],
    });
    const { sim, app } = world;
    const agent = world.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await sim.flush();
    app.clock.now += 20_000;
    sim.fail({ operation: "ApplyTransition", status: 500, times: 1 });
    await expect(agent.release(lease, { outcome: "failed", note: "flaky" })).rejects.toThrow();
    // A retried release answers the same and records nothing more: the trip is still not on GitHub.
    await agent.release(lease, { outcome: "failed", note: "flaky" });
    await sim.flush();
    expect(summaries()).toEqual([]);
    expect(sim.issue(repo, 1).labels).not.toContain("agent:needs-human");

    const report = await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(report.actions).toContainEqual({
      subject: `${repo}#1`,
      action: "repair",
      reason: "failure-trip-unwritten",
    });
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
    expect(summaries()).toHaveLength(1);
    expect(summaries()[0]).toContain("flaky");

    app.clock.now += 60_000;
    await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(summaries()).toHaveLength(1);
  });

  it("an override claim's ending write GitHub refused: the janitor's retry puts the tripped breaker's label back", async () => {
    world = await startWorld({
      config: config.replace("maxFailures: 3", "maxFailures: 1"),
      issues: [{ number: 1, title: "Poisoned issue" }],
    });
    const { sim, app } = world;
    await failByRelease("A", "flaky");
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
    const overridden = await claim("B", { override: true });
    expect(overridden).toMatchObject({ status: 201 });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).not.toContain("agent:needs-human");
    sim.fail({ operation: "ApplyTransition", status: 500, times: 1 });
    const lease = { id: overridden.body.lease!.id, token: overridden.body.lease!.token };
    await expect(world.agent().release(lease, { outcome: "handoff" })).rejects.toThrow();

    await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
    expect(summaries()).toHaveLength(1);
  });

  it("marks a trip GitHub already shows without posting it again (its mark lost between the write and the mark)", async () => {
    world = await startWorld({
      config: config.replace("maxFailures: 3", "maxFailures: 1"),
      issues: [{ number: 1, title: "Poisoned issue" }],
    });
    const { sim, app, stores } = world;
    await failByRelease("A", "flaky");
    expect(summaries()).toHaveLength(1);
    expect(await stores.claims.breakers([subjectKey])).toMatchObject([{ tripWrittenThrough: 1 }]);
    // As a janitor on another replica sees it between the release's write and its mark.
    const [tripKey, ...others] = await world.redis.keys(`${world.prefix}*:s:*:1:trip`);
    expect(others).toEqual([]);
    await world.redis.del(tripKey!);
    expect(await stores.claims.breakers([subjectKey])).toStrictEqual([{ attempts: [expect.anything()] }]);

    const report = await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(report.actions).toContainEqual({
      subject: `${repo}#1`,
      action: "repair",
      reason: "failure-trip-unwritten",
    });
    expect(summaries()).toHaveLength(1);
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
    expect(await stores.claims.breakers([subjectKey])).toMatchObject([{ tripWrittenThrough: 1 }]);
  });

  it("marks an unwritten trip of a closed issue without writing it, and reads it no more", async () => {
    world = await startWorld({ config, issues: [{ number: 1, title: "Poisoned issue" }] });
    const { sim, app, stores } = world;
    await failByRelease("A", "first");
    app.clock.now += 60_000;
    await failByRelease("B", "second");
    sim.closeIssue({ repo, issue: 1, login: maintainer.login });
    await sim.flush();
    sim.setFile(repo, ".github/claim-hold.yml", config.replace("maxFailures: 3", "maxFailures: 2"));
    await sim.flush();
    app.clock.now += 6 * 60_000;
    await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(summaries()).toEqual([]);
    expect(sim.issue(repo, 1).labels).toEqual([]);
    expect(await stores.claims.breakers([subjectKey])).toMatchObject([{ tripWrittenThrough: 2 }]);

    const mark = sim.requests.mark();
    app.clock.now += 60_000;
    const report = await app.services.janitor.sweep({ reconcile: true });
    expect(report.actions).not.toContainEqual(expect.objectContaining({ reason: "failure-trip-unwritten" }));
    expect(sim.requests.count({ operation: "SubjectStatus" }, mark)).toBe(0);
  });

  it("a failed read of one issue's unwritten trip leaves the others' to be written in the same pass", async () => {
    world = await startWorld({
      config: config.replace("maxFailures: 3", "maxFailures: 1"),
      issues: [
        { number: 1, title: "Poisoned issue" },
        { number: 2, title: "Another poisoned issue" },
      ],
    });
    const { sim, app } = world;
    const agent = world.agent();
    for (const issue of [2, 1]) {
      const { lease } = await agent.claim({
        repo,
        issue,
        actor: { runtime: "codex", sessionId: `S${issue}` },
      });
      await sim.flush();
      app.clock.now += 20_000;
      sim.fail({ operation: "ApplyTransition", status: 500, times: 1 });
      await expect(agent.release(lease, { outcome: "failed" })).rejects.toThrow();
      await agent.release(lease, { outcome: "failed" });
      await sim.flush();
    }
    expect(sim.issue(repo, 1).labels).not.toContain("agent:needs-human");
    expect(sim.issue(repo, 2).labels).not.toContain("agent:needs-human");
    // #1's read fails, however often it is retried.
    sim.fail({ operation: "SubjectStatus", bodyIncludes: '"number":1,', status: 500, times: 20 });
    await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(sim.issue(repo, 2).labels).toEqual(["agent:needs-human"]);
    expect(sim.issue(repo, 1).labels).not.toContain("agent:needs-human");
    sim.clearFaults();
    app.clock.now += 60_000;
    await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
  });

  it("writes the trip when queue.maxFailures is lowered below a subject's count", async () => {
    world = await startWorld({ config, issues: [{ number: 1, title: "Poisoned issue" }] });
    const { sim, app } = world;
    await failByRelease("A", "first");
    app.clock.now += 60_000;
    await failByRelease("B", "second");
    await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(summaries()).toEqual([]);

    sim.setFile(repo, ".github/claim-hold.yml", config.replace("maxFailures: 3", "maxFailures: 2"));
    await sim.flush();
    // The App reads the file again once its cached copy is 5 min old (a push would say so at once).
    app.clock.now += 6 * 60_000;
    await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
    const [summary, ...more] = summaries();
    expect(more).toEqual([]);
    expect(summary).toContain(`${repo}#1 failed 2 times in a row`);
    expect(await claim("C")).toMatchObject({ status: 409, body: { error: "failing", failures: 2 } });
  });
});
