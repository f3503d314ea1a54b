// End to end: the dashboard's operator actions against the simulator — each one's effect on GitHub and in the store, the confirm step, and forged POSTs refused with nothing changed.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LeaseEvent } from "../../src/contract/lease-events.js";
import { type NotifyWorld, startNotifyWorld } from "../notify/support/notify-world.js";
import { type SinkServer, startSinkServer } from "../notify/support/sink-server.js";
import { testAdminToken } from "../support/app-harness.js";
import { probeRedis } from "../support/redis.js";
import {
  claimMarkers,
  type E2eWorld,
  fleet,
  installationId,
  maintainer,
  repo,
  shortConfig,
  startWorld,
} from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;
const keyOf = (issue: number) => ({ installationId, repoId: 1296269, issue });

async function login(): Promise<string> {
  const response = await fetch(`${world.app.url}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: testAdminToken }).toString(),
    redirect: "manual",
  });
  return response.headers.get("set-cookie")!.split(";")[0]!;
}

/** The action token the fleet page's forms carry for this session. */
async function actionToken(cookie: string): Promise<string> {
  const page = await (await fetch(`${world.app.url}/`, { headers: { cookie } })).text();
  const token = /name="token" value="([A-Za-z0-9_-]{43})"/.exec(page)?.[1];
  if (!token) throw new Error("the fleet page shows no action form");
  return token;
}

function post(
  cookie: string,
  action: string,
  fields: Record<string, string>,
  origin: string | null = world.app.url,
): Promise<Response> {
  return fetch(`${world.app.url}/dashboard/actions/${action}`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie,
      ...(origin ? { origin } : {}),
    },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}

/** Everything an action could change: the issue on GitHub (comments included) and the store's record. */
async function everything(issue: number) {
  return {
    github: structuredClone(world.sim.issue(repo, issue)),
    record: await world.stores.claims.get(keyOf(issue)),
    failures: await world.stores.claims.failures(keyOf(issue)),
    paused: await world.stores.documents.getDocument(`janitor:paused:${installationId}`),
  };
}

describe.skipIf(!redisProbe.available)("the dashboard's operator actions", () => {
  beforeEach(async () => {
    world = await startWorld({
      issues: [
        { number: 1, title: "Agent work" },
        { number: 2, title: "Alice's work" },
      ],
    });
  });
  afterEach(() => world.close());

  it("release: the first POST only shows the plan; confirm=1 is `/reclaim release` by the operator, with the note", async () => {
    const { sim } = world;
    const agent = world.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await sim.flush();
    const cookie = await login();
    const token = await actionToken(cookie);
    const before = await everything(1);

    const asked = await post(cookie, "release", { token, repo, issue: "1" });
    expect(asked.status).toBe(200);
    const plan = await asked.text();
    expect(plan).toContain(`Release ${repo}#1`);
    expect(plan).toContain('name="confirm" value="1"');
    expect(await everything(1)).toStrictEqual(before);

    const done = await post(cookie, "release", {
      token,
      repo,
      issue: "1",
      generation: "1",
      confirm: "1",
      note: "stuck on @alice's <b>review</b>",
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain(`${repo}#1 is back in the queue at generation 2`);
    await sim.flush();
    const issue = sim.issue(repo, 1);
    expect(issue.assignees).toEqual([]);
    expect(issue.labels).toEqual([]);
    const reply = issue.comments.at(-1)!;
    expect(reply.author).toBe("claim-hold[bot]");
    expect(reply.body).toContain(
      "🔁 An operator (claim-hold dashboard) released this issue back to the queue (generation 2); nobody holds it now.",
    );
    // The note is quoted inert: no mention, no markup.
    expect(reply.body).toContain("Note: stuck on @\u2060alice's \\<b\\>review\\</b\\>");
    expect(claimMarkers(sim, 1)).toEqual([
      { generation: 1, state: "revoked" },
      { generation: 2, state: "released" },
    ]);
    expect(await world.stores.claims.get(keyOf(1))).toMatchObject({
      state: "released",
      generation: 2,
      actor: { kind: "human", login: "claim-hold[dashboard]" },
    });
    // The agent learns its lease ended, as after `/reclaim release`.
    await expect(agent.verify(lease)).rejects.toMatchObject({ status: 410 });
    // Free for the queue: another session claims it.
    expect((await world.agent().claim({ repo, issue: 1, actor: { sessionId: "B" } })).lease.generation).toBe(
      3,
    );
    await sim.flush();

    // The confirmed form sent again (a resent page) names generation 1: B's claim is left alone.
    const resent = await post(cookie, "release", { token, repo, issue: "1", generation: "1", confirm: "1" });
    expect(resent.status).toBe(409);
    expect(await resent.text()).toContain("is at generation 3 now, not the 1 the page showed");
    expect(await world.stores.claims.get(keyOf(1))).toMatchObject({ state: "active", generation: 3 });

    // A second release finds no live agent claim of #2 and changes nothing.
    const nothing = await post(cookie, "release", { token, repo, issue: "2", confirm: "1" });
    expect(nothing.status).toBe(409);
    expect(await nothing.text()).toContain("has no live agent claim to release");
  });

  it("hand back to the queue: a person's hold ends, nobody assigned, agents may claim it", async () => {
    const { sim } = world;
    sim.comment({ repo, issue: 2, login: maintainer.login, body: "/reclaim" });
    await sim.flush();
    expect(sim.issue(repo, 2).assignees).toEqual([maintainer.login]);
    await expect(world.agent().claim({ repo, issue: 2, actor: { sessionId: "A" } })).rejects.toMatchObject({
      code: "human_held",
    });
    const cookie = await login();
    const token = await actionToken(cookie);

    const done = await post(cookie, "requeue", { token, repo, issue: "2", confirm: "1" });
    expect(done.status).toBe(200);
    await sim.flush();
    expect(sim.issue(repo, 2)).toMatchObject({ assignees: [], labels: [] });
    expect(sim.issue(repo, 2).comments.at(-1)?.body).toContain(
      "An operator (claim-hold dashboard) released this issue back to the queue (generation 2)",
    );
    expect(await world.stores.claims.get(keyOf(2))).toMatchObject({ state: "released", generation: 2 });
    // The same form sent again (a double click) finds the subject free and changes nothing.
    const before = await everything(2);
    const again = await post(cookie, "requeue", { token, repo, issue: "2", confirm: "1" });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("is free already");
    await sim.flush();
    expect(await everything(2)).toStrictEqual(before);
    expect((await world.agent().claim({ repo, issue: 2, actor: { sessionId: "B" } })).lease.generation).toBe(
      3,
    );
  });

  it("clear needs-human: the holder's ask withdrawn, the breaker reset, the label off, the holder's stream told; a stale or forged form changes nothing", async () => {
    const { sim, app } = world;
    // Generation 1 fails once (the breaker counts it, backing off); generation 2 asks for a person.
    const first = world.agent();
    const failed = await first.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await sim.flush();
    await first.release(failed.lease, { outcome: "failed", note: "tests hang" });
    await sim.flush();
    const agent = world.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "B" } });
    await agent.heartbeat(lease, { needsHuman: true, blocker: "which schema?" });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed", "agent:needs-human"]);
    expect(await world.stores.claims.failures(keyOf(1))).toHaveLength(1);

    // The holder listens on its live stream (its first event is the lease's state).
    const abort = new AbortController();
    const heard: LeaseEvent[] = [];
    const events = await agent.leaseEvents(lease, { signal: abort.signal });
    const iterator = events[Symbol.asyncIterator]();
    heard.push((await iterator.next()).value as LeaseEvent);
    const answered = (async () => {
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        heard.push(next.value);
        if (next.value.event === "needs_human_answered") return;
      }
    })();

    const cookie = await login();
    const token = await actionToken(cookie);
    const fleetPage = await (await fetch(`${app.url}/`, { headers: { cookie } })).text();
    expect(fleetPage).toMatch(/data-attention="needs-human"[\s\S]*data-action="clear-needs-human"/);
    const before = await everything(1);

    // The first POST shows what needs a person, and changes nothing.
    const asked = await post(cookie, "clear-needs-human", { token, repo, issue: "1", generation: "2" });
    expect(asked.status).toBe(200);
    const plan = await asked.text();
    expect(plan).toContain(`Clear needs-human on ${repo}#1`);
    expect(plan).toContain("@fleet-bot asks for a person: which schema?");
    // The breaker has not tripped, but the clear forgets the failure: the plan says so.
    expect(plan).toContain(
      "The clear forgets all 1 failed attempt(s) the store keeps (the breaker has not tripped).",
    );
    expect(plan).toContain('name="generation" value="2"');
    expect(plan).toContain('name="confirm" value="1"');
    // A forged form (no token) and a stale one (generation 1, before this claim) change nothing.
    const forged = await post(cookie, "clear-needs-human", {
      repo,
      issue: "1",
      generation: "2",
      confirm: "1",
    });
    expect(forged.status).toBe(403);
    expect((await forged.json()).error).toBe("csrf_refused");
    const stale = await post(cookie, "clear-needs-human", {
      token,
      repo,
      issue: "1",
      generation: "1",
      confirm: "1",
    });
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain("is at generation 2 now, not the 1 the page showed");
    await sim.flush();
    expect(await everything(1)).toStrictEqual(before);

    const done = await post(cookie, "clear-needs-human", {
      token,
      repo,
      issue: "1",
      generation: "2",
      confirm: "1",
      note: "use the @alice schema",
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain(
      `${repo}#1 needs no person now (generation 2): the holder&#39;s ask is withdrawn; the failure breaker is reset (1 failed attempt(s) forgotten).`,
    );
    await sim.flush();
    const issue = sim.issue(repo, 1);
    expect(issue.labels).toEqual(["agent:claimed"]);
    expect(issue.assignees).toEqual([fleet.login]);
    const reply = issue.comments.at(-1)!;
    expect(reply.author).toBe("claim-hold[bot]");
    expect(reply.body).toContain("✅ An operator (claim-hold dashboard) cleared needs-human (generation 2).");
    expect(reply.body).toContain("ask for a person is withdrawn; it asks again if it is still stuck.");
    expect(reply.body).toContain("The failure breaker is reset (1 failed attempt forgotten)");
    expect(reply.body).toContain("Note: use the @\u2060alice schema");
    const record = await world.stores.claims.get(keyOf(1));
    expect(record).toMatchObject({ state: "active", generation: 2 });
    expect(record).not.toHaveProperty("needsHuman");
    expect(await world.stores.claims.failures(keyOf(1))).toStrictEqual([]);
    await answered;
    abort.abort();
    expect(heard.at(-1)).toStrictEqual({
      event: "needs_human_answered",
      data: {
        by: "claim-hold[dashboard]",
        how: "cleared",
        at: new Date(app.clock.now).toISOString(),
        leaseId: lease.id,
      },
    });
    // The claim itself stands: the holder's lease goes on.
    await expect(agent.verify(lease)).resolves.toMatchObject({ generation: 2 });

    // The same form again (a double click): nothing needs a person now.
    const again = await post(cookie, "clear-needs-human", {
      token,
      repo,
      issue: "1",
      generation: "2",
      confirm: "1",
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toStrictEqual({
      error: "no_person_needed",
      message: `${repo}#1 does not need a person: no holder asks for one and its failure breaker has not tripped. Nothing was changed.`,
    });

    // A holder still stuck asks again with its next heartbeat; the label comes back once a minute has
    // passed since the dashboard took it off (at most one label write a minute).
    app.clock.now += 25_000;
    await agent.heartbeat(lease, { needsHuman: true, blocker: "which schema?" });
    await sim.flush();
    expect(await world.stores.claims.get(keyOf(1))).toMatchObject({ needsHuman: true });
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);
    app.clock.now += 36_000;
    await agent.heartbeat(lease, { needsHuman: true, blocker: "which schema?" });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed", "agent:needs-human"]);
  });

  it("clear needs-human: a tripped failure breaker is reset from the subject page, and agents may claim the issue again", async () => {
    await world.close();
    world = await startWorld({
      config:
        "taskClasses:\n  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }\nqueue:\n  maxFailures: 1\n",
      issues: [{ number: 1, title: "Poisoned issue" }],
    });
    const { sim, app } = world;
    const agent = world.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await sim.flush();
    await agent.release(lease, { outcome: "failed", note: "broken" });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
    await expect(world.agent().claim({ repo, issue: 1, actor: { sessionId: "B" } })).rejects.toMatchObject({
      code: "failing",
    });

    const cookie = await login();
    const subjectPage = await (await fetch(`${app.url}/subjects/${repo}/1`, { headers: { cookie } })).text();
    expect(subjectPage).toContain("the failure breaker tripped after 1 failed attempt(s)");
    const token = /name="token" value="([A-Za-z0-9_-]{43})"/.exec(subjectPage)![1]!;
    expect(subjectPage).toMatch(/name="generation" value="1"[\s\S]*data-action="clear-needs-human"/);

    const asked = await post(cookie, "clear-needs-human", { token, repo, issue: "1", generation: "1" });
    const trippedPlan = await asked.text();
    expect(trippedPlan).toContain("The failure breaker tripped after 1 failed attempt(s).");
    expect(trippedPlan).toContain("The clear forgets all 1 failed attempt(s) the store keeps.");
    const done = await post(cookie, "clear-needs-human", {
      token,
      repo,
      issue: "1",
      generation: "1",
      confirm: "1",
    });
    expect(done.status).toBe(200);
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual([]);
    expect(sim.issue(repo, 1).comments.at(-1)?.body).toBe(
      [
        "✅ An operator (claim-hold dashboard) cleared needs-human (generation 1).",
        "The failure breaker is reset (1 failed attempt forgotten): agents may claim the issue again.",
      ].join("\n"),
    );
    expect(await world.stores.claims.failures(keyOf(1))).toStrictEqual([]);
    expect(await world.stores.claims.get(keyOf(1))).toMatchObject({ state: "released", generation: 1 });
    expect((await world.agent().claim({ repo, issue: 1, actor: { sessionId: "B" } })).lease.generation).toBe(
      2,
    );
  });

  it("clear needs-human: after GitHub refused the write, the same action offers and takes off the leftover label", async () => {
    await world.close();
    world = await startWorld({
      config:
        "taskClasses:\n  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }\nqueue:\n  maxFailures: 1\n",
      issues: [{ number: 1, title: "Poisoned issue" }],
    });
    const { sim, app } = world;
    const agent = world.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await sim.flush();
    await agent.release(lease, { outcome: "failed", note: "broken" });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
    const comments = sim.issue(repo, 1).comments.length;

    const cookie = await login();
    const token = await actionToken(cookie);
    sim.fail({ operation: "ApplyTransition", status: 500, bodyIncludes: "cleared needs-human" });
    const failed = await post(cookie, "clear-needs-human", {
      token,
      repo,
      issue: "1",
      generation: "1",
      confirm: "1",
    });
    expect(failed.status).toBe(200);
    const failedPage = await failed.text();
    expect(failedPage).toContain(
      "GitHub refused the label removal and the comment. Clear needs-human again to retry them: its plan offers to remove the leftover label.",
    );
    expect(failedPage).not.toContain("janitor");
    expect(failedPage).toMatch(/name="generation" value="1"[\s\S]*data-action="clear-needs-human"/);
    await sim.flush();
    expect(await world.stores.claims.failures(keyOf(1))).toStrictEqual([]);
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);
    expect(sim.issue(repo, 1).comments).toHaveLength(comments);
    // The janitor's reconcile leaves an ended claim's label alone: only the action can redo the write.
    await app.services.janitor.sweep();
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:needs-human"]);

    const asked = await post(cookie, "clear-needs-human", { token, repo, issue: "1", generation: "1" });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain("remove the leftover label");
    const done = await post(cookie, "clear-needs-human", {
      token,
      repo,
      issue: "1",
      generation: "1",
      confirm: "1",
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain(
      "only the leftover needs-human label was left to take off. The App took the needs-human label off and commented on the issue.",
    );
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual([]);
    expect(sim.issue(repo, 1).comments.at(-1)?.body).toBe(
      [
        "✅ An operator (claim-hold dashboard) cleared needs-human (generation 1).",
        "The leftover needs-human label is taken off: nothing asks for a person and the failure breaker has not tripped.",
      ].join("\n"),
    );
    // Nothing left to clear now.
    const again = await post(cookie, "clear-needs-human", { token, repo, issue: "1", generation: "1" });
    expect(again.status).toBe(409);
  });

  it("janitor: the dry run shows the plan and writes nothing; apply relabels; a pause holds every sweep until resumed", async () => {
    const { sim, app } = world;
    await world.agent().claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await sim.flush();
    app.clock.now += 31_000; // past the 30 s ttl: stale
    const cookie = await login();
    const token = await actionToken(cookie);

    const dry = await post(cookie, "janitor-run", { token });
    expect(dry.status).toBe(200);
    expect(await dry.text()).toMatch(/data-plan-subject="octo\/widgets#1">octo\/widgets#1: relabel-stale/);
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);

    // Paused: the operator's apply does not override it, and neither does a scheduled sweep.
    expect((await post(cookie, "janitor-pause", { token, installationId: "42", confirm: "1" })).status).toBe(
      200,
    );
    const page = await (await fetch(`${app.url}/`, { headers: { cookie } })).text();
    expect(page).toContain("janitor paused");
    const held = await post(cookie, "janitor-run", { token, confirm: "1" });
    expect(await held.text()).toContain("Paused, not swept: octo.");
    const scheduled = await app.services.janitor.sweep();
    expect(scheduled).toMatchObject({ pausedInstallations: [installationId], actions: [] });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toContain("claim_hold_janitor_paused_installations 1");

    expect((await post(cookie, "janitor-resume", { token, installationId: "42", confirm: "1" })).status).toBe(
      200,
    );
    const applied = await post(cookie, "janitor-run", { token, confirm: "1" });
    expect(applied.status).toBe(200);
    expect(await applied.text()).toContain("The sweep ran: 1 action(s).");
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:stale"]);
  });

  it("janitor: a Gitea instance's installation record (2^48 + N, 15 digits) can be paused and resumed; a longer or unsafe id is refused", async () => {
    const cookie = await login();
    const token = await actionToken(cookie);
    const gitea = String(2 ** 48 + 1);
    const paused = await post(cookie, "janitor-pause", { token, installationId: gitea, confirm: "1" });
    expect(paused.status).toBe(200);
    expect(await paused.text()).toMatch(/paused/i);
    expect(
      (await post(cookie, "janitor-resume", { token, installationId: gitea, confirm: "1" })).status,
    ).toBe(200);
    for (const installationId of ["9007199254740993", "1234567890123456"]) {
      expect((await post(cookie, "janitor-pause", { token, installationId, confirm: "1" })).status).toBe(422);
    }
  });

  it("janitor: while a sweep runs, the dashboard's run answers 409 janitor_busy like the API", async () => {
    const cookie = await login();
    const token = await actionToken(cookie);
    let finish = () => {};
    const running = world.app.services.jobs.runNow(
      "janitor",
      () => new Promise<void>((resolve) => (finish = resolve)),
    );
    try {
      const busy = await post(cookie, "janitor-run", { token });
      expect(busy.status).toBe(409);
      expect(await busy.json()).toStrictEqual({
        error: "janitor_busy",
        message:
          "A janitor sweep is running already (scheduled or operator-run); retry once it has finished.",
      });
    } finally {
      finish();
      await running;
    }
  });

  it("refuses forged POSTs — no token, another session's token, another origin, no session — and changes nothing", async () => {
    const { sim, app } = world;
    await world.agent().claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await sim.flush();
    const cookie = await login();
    app.clock.now += 1_000; // another login, another session
    const other = await login();
    expect(other).not.toBe(cookie);
    const otherToken = await actionToken(other);
    const token = await actionToken(cookie);
    const before = await everything(1);
    const apply = { repo, issue: "1", confirm: "1", installationId: "42" };

    for (const action of ["release", "requeue", "clear-needs-human", "janitor-run", "janitor-pause"]) {
      const noToken = await post(cookie, action, apply);
      expect(noToken.status, action).toBe(403);
      expect(await noToken.json()).toStrictEqual({
        error: "csrf_refused",
        message:
          "The form's token is missing or belongs to another session. Nothing was changed; reload the dashboard and try again.",
      });
      const stolen = await post(cookie, action, { ...apply, token: otherToken });
      expect(stolen.status, action).toBe(403);
      expect((await stolen.json()).error).toBe("csrf_refused");
      const crossSite = await post(cookie, action, { ...apply, token }, "https://evil.example");
      expect(crossSite.status, action).toBe(403);
      expect(await crossSite.json()).toStrictEqual({
        error: "csrf_refused",
        message:
          "The form was not sent from the dashboard's own origin. Nothing was changed; reload the dashboard and try again.",
      });
      const noOrigin = await post(cookie, action, { ...apply, token }, null);
      expect(noOrigin.status, action).toBe(403);
      const noSession = await post("", action, { ...apply, token });
      expect(noSession.status, action).toBe(401);
    }
    await sim.flush();
    expect(await everything(1)).toStrictEqual(before);
    expect(sim.issue(repo, 1).assignees).toEqual([fleet.login]);
  });
});

describe.skipIf(!redisProbe.available)("the dashboard's notification actions: retry now and drop", () => {
  // A sink whose path is its secret: it must never reach a page, a log line or an error.
  const secretPath = "/hooks/T000SECRET/B000SECRET";
  let sink: SinkServer;
  let notify: NotifyWorld;

  beforeEach(async () => {
    sink = await startSinkServer();
    sink.answer = 500;
    notify = await startNotifyWorld({
      config: shortConfig,
      sinks: [{ url: `${sink.base}${secretPath}`, format: "json", events: ["takeover"] }],
    });
  });
  afterEach(async () => {
    await notify.close();
    await sink.close();
  });

  async function loginTo(): Promise<{ cookie: string; token: string }> {
    const response = await fetch(`${notify.app.url}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: testAdminToken }).toString(),
      redirect: "manual",
    });
    const cookie = response.headers.get("set-cookie")!.split(";")[0]!;
    const page = await (await fetch(`${notify.app.url}/`, { headers: { cookie } })).text();
    const token = /name="token" value="([A-Za-z0-9_-]{43})"/.exec(page)?.[1];
    if (!token) throw new Error("the fleet page shows no action form");
    return { cookie, token };
  }

  function postTo(
    cookie: string,
    action: string,
    fields: Record<string, string>,
    origin: string | null = notify.app.url,
  ): Promise<Response> {
    return fetch(`${notify.app.url}/dashboard/actions/${action}`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie,
        ...(origin ? { origin } : {}),
      },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    });
  }

  /** A takeover of `issue` (one takeover notification), tried once and failed by the sink: waiting to retry. */
  async function failedTakeover(issue: number): Promise<string> {
    const { app } = notify;
    await notify.agent().claim({ repo, issue, actor: { runtime: "claude-code", sessionId: `A${issue}` } });
    app.clock.now += 30_000;
    await notify
      .agent()
      .claim({ repo, issue, actor: { runtime: "codex", sessionId: `B${issue}` }, takeover: true });
    await notify.sim.flush();
    await app.services.notifier.flush();
    const before = sink.requests.length;
    expect(await app.services.sender.tick()).toBe(1);
    expect(sink.requests.length).toBe(before + 1);
    const [waiting] = await notify.outbox.retrying(10);
    expect(waiting).toMatchObject({ event: "takeover", subject: `${repo}#${issue}`, attempts: 1 });
    return waiting!.id;
  }

  it("retry now: the confirm step changes nothing; confirm=1 makes it due and the next round delivers it once, same Idempotency-Key", async () => {
    const { app } = notify;
    const id = await failedTakeover(1);
    const { cookie, token } = await loginTo();
    const page = await (await fetch(`${app.url}/`, { headers: { cookie } })).text();
    expect(page).toContain(`name="delivery" value="${id}"`);
    expect(page).toContain('data-action="notification-retry"');
    expect(page).toContain('data-action="notification-drop"');
    const waiting = await notify.outbox.retrying(10);

    const asked = await postTo(cookie, "notification-retry", { token, delivery: id });
    expect(asked.status).toBe(200);
    const plan = await asked.text();
    expect(plan).toContain(`Retry the notification delivery ${id} now`);
    expect(plan).toContain('name="confirm" value="1"');
    expect(await notify.outbox.retrying(10)).toStrictEqual(waiting);

    sink.answer = 200;
    const done = await postTo(cookie, "notification-retry", { token, delivery: id, confirm: "1" });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain(`The notification delivery ${id} is due now (1 failed tries so far)`);
    expect(await notify.outbox.retrying(10)).toMatchObject([{ id, attempts: 1, dueAt: app.clock.now }]);
    // The clock has not moved: without the operator it would wait 5 s more.
    expect(await app.services.sender.tick()).toBe(1);
    expect(sink.requests).toHaveLength(2);
    expect(new Set(sink.requests.map((r) => r.headers["idempotency-key"])).size).toBe(1);
    expect(await notify.outbox.recent(10)).toMatchObject([{ id, result: "sent", attempts: 2 }]);
    app.clock.now += 3_600_000;
    expect(await app.services.sender.tick()).toBe(0);
    expect(sink.requests).toHaveLength(2);

    // Delivered: retrying or dropping it again answers 404, nothing changed.
    for (const action of ["notification-retry", "notification-drop"]) {
      const again = await postTo(cookie, action, { token, delivery: id, confirm: "1" });
      expect(again.status, action).toBe(404);
      expect(await again.json()).toStrictEqual({
        error: "not_found",
        message: `No notification delivery ${id} is queued: it was delivered or dropped already, or never queued. Nothing was changed.`,
      });
    }
    expect(await notify.outbox.recent(10)).toHaveLength(1);
    expect(app.logs.join("")).toContain('"operatorAction":"notification-retry"');
  });

  it("drop: the delivery leaves the outbox, is never sent, listed and counted as dropped; never the sink's URL", async () => {
    const { app } = notify;
    const id = await failedTakeover(2);
    const { cookie, token } = await loginTo();
    const done = await postTo(cookie, "notification-drop", { token, delivery: id, confirm: "1" });
    expect(done.status).toBe(200);
    const text = await done.text();
    expect(text).toContain(`The notification delivery ${id} was dropped after 1 failed tries`);
    expect(await notify.outbox.depth()).toBe(0);
    expect(await notify.outbox.recent(10)).toMatchObject([
      { id, result: "dropped", reason: "dropped by an operator (dashboard)", attempts: 1 },
    ]);

    sink.answer = 200;
    app.clock.now += 3_600_000;
    expect(await app.services.sender.tick()).toBe(0);
    expect(sink.requests).toHaveLength(1);

    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toContain(
      'claim_hold_notification_deliveries_total{result="dropped",event="takeover"} 1',
    );
    const page = await (await fetch(`${app.url}/`, { headers: { cookie } })).text();
    expect(page).toContain("dropped by an operator (dashboard)");
    const logs = app.logs.join("");
    expect(logs).toContain('"operatorAction":"notification-drop"');
    expect(logs).toContain("notification dropped by an operator");
    for (const seen of [page, text, logs]) {
      expect(seen).not.toContain("SECRET");
      expect(seen).not.toContain(sink.base);
    }
  });

  it("leaves a delivery another replica is sending to it: 409 delivery_in_flight, nothing changed", async () => {
    const { app } = notify;
    const id = await failedTakeover(3);
    const { cookie, token } = await loginTo();
    app.clock.now += 5_000;
    // Another replica's sender claims it now (its 60 s lease runs).
    const claimed = await notify.outbox.claimDue({
      now: app.clock.now,
      leaseMs: 60_000,
      limit: 10,
      claimant: "other-replica",
    });
    expect(claimed.deliveries.map((d) => d.id)).toEqual([id]);
    for (const action of ["notification-retry", "notification-drop"]) {
      const refused = await postTo(cookie, action, { token, delivery: id, confirm: "1" });
      expect(refused.status, action).toBe(409);
      expect(await refused.json()).toStrictEqual({
        error: "delivery_in_flight",
        message: `A sender is sending the notification delivery ${id} right now (its lease ends ${new Date(app.clock.now + 60_000).toISOString()}); it was left to it and nothing was changed. Reload the dashboard: once the try has failed, it waits for its retry again.`,
      });
    }
    // Its sender settles it as usual: not lost.
    expect(
      await notify.outbox.settle(claimed.deliveries[0]!, "other-replica", { kind: "sent" }, app.clock.now),
    ).toBe(true);
    expect(await notify.outbox.recent(10)).toMatchObject([{ id, result: "sent" }]);
  });

  it("refuses forged POSTs and malformed delivery ids, and changes nothing", async () => {
    const id = await failedTakeover(4);
    const { cookie, token } = await loginTo();
    const before = await notify.outbox.retrying(10);
    for (const action of ["notification-retry", "notification-drop"]) {
      const apply = { delivery: id, confirm: "1" };
      const noToken = await postTo(cookie, action, apply);
      expect(noToken.status, action).toBe(403);
      expect((await noToken.json()).error).toBe("csrf_refused");
      const crossSite = await postTo(cookie, action, { ...apply, token }, "https://evil.example");
      expect(crossSite.status, action).toBe(403);
      expect((await crossSite.json()).error).toBe("csrf_refused");
      expect((await postTo("", action, { ...apply, token })).status, action).toBe(401);
      const malformed = await postTo(cookie, action, { token, delivery: "../../x", confirm: "1" });
      expect(malformed.status, action).toBe(422);
      expect((await malformed.json()).error).toBe("invalid_request");
    }
    expect(await notify.outbox.retrying(10)).toStrictEqual(before);
    expect(await notify.outbox.recent(10)).toEqual([]);
  });
});
