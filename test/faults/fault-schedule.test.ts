// Randomized fault injection (seeded, FAULT_SEED reproduces): sessions, humans, janitor and webhooks against the real App, a forge's simulator (GitHub, then Gitea) and a dedicated Redis, then a history check.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ClaimHoldClient,
  createClaimHoldClient,
  isClaimHoldError,
} from "../../src/agent/client/index.js";
import type { SubjectKey } from "../../src/domain/claim.js";
import { advance, type FakeTime, type FaultApp } from "./support/fault-app.js";
import { type FaultForge, type FaultForgeName, startFaultForge } from "./support/fault-forges.js";
import { checkHistory, type HistoryEvent, liveForMs } from "./support/history-checker.js";
import {
  createRandom,
  faultKinds,
  type Random,
  type StepKind,
  stepKinds,
  suiteSeed,
} from "./support/schedule.js";

const soak = process.env.FAULT_SOAK === "1";
const githubIterations = Number(process.env.FAULT_ITERATIONS ?? (soak ? 1000 : 100));
/** Gitea's run is shorter by default: its App writes one REST request at a time (CI's time budget). */
const giteaIterations = Number(
  process.env.FAULT_GITEA_ITERATIONS ?? process.env.FAULT_ITERATIONS ?? (soak ? 1000 : 40),
);
const stepsPerIteration = soak ? 60 : 24;
const repo = "octo/widgets";
const minute = 60_000;

interface Session {
  id: string;
  login: string;
  client: ClaimHoldClient;
  alive: boolean;
  lastOk: number;
  lease?: { id: string; token: string; generation: number; subject: string; issue: number };
}

/** The forge the running `describe` schedules against, and its App. */
let f: FaultForge;
let app: FaultApp;
let time: FakeTime;
let iterations: number;
const seed = suiteSeed();
const freshFigures = () => ({
  iterations: 0,
  steps: 0,
  requests: 0,
  faults: {} as Record<string, number>,
  histories: 0,
  events: 0,
  violations: 0,
});
let figures = freshFigures();

async function waitForStore(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      await app.stores.connection.ping();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  throw new Error("the store did not come back");
}

/** The forge's world on a fresh fake clock, its figures from zero. */
async function startForge(forge: FaultForgeName): Promise<void> {
  iterations = forge === "github" ? githubIterations : giteaIterations;
  figures = freshFigures();
  time = { wall: Date.parse("2026-11-29T10:00:00Z"), monotonic: 0 };
  console.log(
    `fault schedule (${forge}) seed ${seed} (FAULT_SEED=${seed} reproduces it), ${iterations} iterations`,
  );
  f = await startFaultForge(forge, time);
  app = f.app;
}

/** One iteration: fresh issues and sessions, a random schedule, then cleanup, a final reconcile and the checks. */
async function runIteration(iteration: number, random: Random, history: HistoryEvent[]): Promise<void> {
  const { installationId, repoId, agents } = f;
  const issues = [0, 1, 2].map((i) => f.addIssue(`Work item ${iteration}.${i}`));
  const subjectOf = (issue: number) => `${repo}#${issue}`;
  const sessions: Session[] = [0, 1, 2, 3].map((i) => {
    const agent = agents[i === 3 ? 1 : 0]!;
    return {
      id: `s${iteration}-${i}`,
      login: agent.login,
      client: createClaimHoldClient({
        baseUrl: app.url,
        githubToken: agent.token,
        ...(f.clientForge ? { forge: f.clientForge } : {}),
        retries: 0,
        maxTakeoverWaits: 0,
        timeoutMs: 15_000,
      }),
      alive: true,
      lastOk: app.now(),
    };
  });
  const humanAssigned = new Set<number>();
  let held = false;
  const count = (kind: string) => {
    figures.faults[kind] = (figures.faults[kind] ?? 0) + 1;
  };

  const statusOf = (error: unknown) => (isClaimHoldError(error) ? error.status : -1);
  const codeOf = (error: unknown) => (isClaimHoldError(error) ? error.code : String(error));

  async function claim(session: Session, issue: number, takeover: boolean): Promise<number> {
    figures.requests++;
    const subject = subjectOf(issue);
    try {
      const result = await session.client.claim({
        repo,
        issue,
        // Each session proves its re-claims with its own key (invariant 14), as the CLI does.
        actor: {
          runtime: "fault-test",
          sessionId: session.id,
          sessionKey: `session-key-of-${session.id}`.padEnd(32, "0"),
        },
        takeover,
      });
      session.lease = { ...result.lease, subject, issue };
      session.alive = true;
      session.lastOk = app.now();
      history.push({
        kind: "claim",
        session: session.id,
        subject,
        status: result.created ? 201 : 200,
        generation: result.lease.generation,
        ...(result.resume ? { previousGeneration: result.resume.previousGeneration } : {}),
        appNow: app.now(),
      });
      return result.created ? 201 : 200;
    } catch (error) {
      history.push({
        kind: "claim",
        session: session.id,
        subject,
        status: statusOf(error),
        appNow: app.now(),
      });
      if (!isClaimHoldError(error)) throw error;
      return error.status;
    }
  }

  async function leaseCall(session: Session, op: "heartbeat" | "verify" | "release"): Promise<void> {
    const lease = session.lease;
    if (!lease) return;
    figures.requests++;
    const live = session.alive && app.now() - session.lastOk < liveForMs;
    const base = {
      kind: "lease" as const,
      op,
      session: session.id,
      subject: lease.subject,
      generation: lease.generation,
      live,
    };
    try {
      if (op === "heartbeat") await session.client.heartbeat(lease);
      else if (op === "verify") await session.client.verify(lease);
      else
        await session.client.release(lease, {
          outcome: random.pick(["handoff", "completed", "abandoned"] as const),
        });
      history.push({ ...base, status: 200, appNow: app.now() });
      if (op === "release") session.lease = undefined;
      else session.lastOk = app.now();
    } catch (error) {
      if (!isClaimHoldError(error)) throw error;
      history.push({ ...base, status: error.status, code: codeOf(error), appNow: app.now() });
      // A refused lease is gone; a release that failed half-way is given up too ("retry is safe",
      // but this session walks away: the reconcile must finish what the App started).
      if ([401, 404, 409, 410].includes(error.status) || op === "release") session.lease = undefined;
    }
  }

  const beatAll = async () => {
    for (const session of sessions) if (session.alive && session.lease) await leaseCall(session, "heartbeat");
  };

  /** Time passes in heartbeat-sized chunks; live sessions heartbeat after each. */
  async function pass(ms: number): Promise<void> {
    for (let left = ms; left > 0; left -= 4 * minute) {
      advance(time, Math.min(left, 4 * minute));
      await beatAll();
    }
  }

  async function observe(): Promise<void> {
    for (const issue of issues) {
      const key: SubjectKey = { installationId, repoId, issue };
      const record = await app.stores.claims.get(key).catch(() => null);
      if (record)
        history.push({
          kind: "store",
          subject: subjectOf(issue),
          generation: record.generation,
          appNow: app.now(),
        });
    }
  }

  async function sweep(reconcile: boolean): Promise<void> {
    try {
      await app.services.janitor.sweep({ reconcile });
    } catch {
      // Store unreachable (or GitHub failed mid-sweep): the next sweep picks the work up.
    }
  }

  async function step(kind: StepKind): Promise<void> {
    const session = random.pick(sessions);
    const issue = random.pick(issues);
    switch (kind) {
      case "claim":
        if (!session.lease || random.chance(0.2)) await claim(session, session.lease?.issue ?? issue, false);
        return;
      case "takeover": {
        if (session.lease) return;
        const status = await claim(session, issue, true);
        if (status === 202) {
          // Wait out the grace beat (the incumbent, if live, heartbeats meanwhile) and retry.
          await pass(random.int(1, 6) * minute);
          await claim(session, issue, true);
        }
        return;
      }
      case "tick":
        await pass(random.int(5, 240) * 1000);
        return;
      case "longSilence":
        await pass(random.int(20, 75) * minute);
        return;
      case "kill":
        if (session.lease) session.alive = false;
        return;
      case "zombie": {
        const zombie = sessions.find((s) => !s.alive && s.lease);
        if (zombie) await leaseCall(zombie, random.pick(["heartbeat", "verify", "release"] as const));
        if (zombie?.lease) zombie.alive = true;
        return;
      }
      case "release":
        if (session.lease) await leaseCall(session, "release");
        return;
      case "verify":
        if (session.lease) await leaseCall(session, "verify");
        return;
      case "janitor":
        await sweep(random.chance(0.3));
        return;
      case "humanAssign":
        if (f.issue(issue).assignees.length === 0 && f.issue(issue).state === "open") {
          f.assign(issue, ["alice"]);
          humanAssigned.add(issue);
          history.push({ kind: "human-assigned", subject: subjectOf(issue), login: "alice" });
        }
        return;
      case "humanReclaim":
        history.push({ kind: "human", subject: subjectOf(issue), action: "reclaim" });
        f.comment(issue, random.chance(0.5) ? "/reclaim" : "/reclaim release");
        return;
      case "humanUnassign": {
        const agent = f.issue(issue).assignees.find((a) => a !== "alice");
        if (agent) {
          history.push({ kind: "human", subject: subjectOf(issue), action: "unassign" });
          f.unassign(issue, [agent]);
        }
        return;
      }
      case "redisFlush":
        count(kind);
        await f.redis.command("FLUSHALL");
        return;
      case "redisRestart":
        count(kind);
        await f.redis.restart();
        await waitForStore();
        return;
      case "redisOutage": {
        count(kind);
        await f.flush();
        // Writes are attributed by when they reached GitHub, not when they were answered: one the App
        // sent before the cut (say a claim write held back by an earlier `githubTimeout` fault, given
        // up on and then applied late) was not caused by the outage.
        const mark = f.arrivalMark();
        f.proxy.cut();
        // "30 s" of fake time: heartbeats and claims answer 503, the janitor skips.
        for (let i = 0; i < 3; i++) {
          advance(time, 10_000);
          await beatAll();
        }
        await claim(session, issue, false);
        await sweep(random.chance(0.5));
        await f.flush();
        const writes = f.writesArrivedSince(mark);
        if (writes.length > 0)
          history.push({
            kind: "outage-write",
            detail: `${writes.length} ${f.forge} writes while Redis was unreachable: ${writes.join("; ")}`,
          });
        f.proxy.restore();
        await waitForStore();
        return;
      }
      case "redisSlow":
        count(kind);
        f.proxy.slow(100);
        await beatAll();
        await claim(session, issue, random.chance(0.3));
        f.proxy.restore();
        return;
      case "githubError": {
        count(kind);
        const operation = random.pick(["ApplyTransition", "SubjectStatus"] as const);
        const status = random.pick([500, 502, 503, 403, 429]);
        f.failRequests(operation, status, random.int(1, 2));
        return;
      }
      case "githubTimeout":
        count(kind);
        // GitHub: longer than the App waits (400 ms): it gives up, while the simulator still applies the
        // write afterwards. Gitea: the App's client sets no timeout, so it waits the 600 ms out.
        f.delayRequests(random.pick(["ApplyTransition", "SubjectStatus"] as const), 600);
        await claim(session, issue, random.chance(0.5));
        await new Promise((resolve) => setTimeout(resolve, 300));
        return;
      case "webhookDrop":
        count(kind);
        f.webhooks.dropNext(random.int(1, 3));
        return;
      case "webhookReorder":
        count(kind);
        if (!held) {
          f.webhooks.hold();
          held = true;
        } else {
          const pending = f.webhooks.pending();
          f.webhooks.reorder([...pending].reverse());
          f.webhooks.release();
          held = false;
        }
        return;
      case "webhookRedeliver": {
        count(kind);
        const delivered = f.webhooks.delivered();
        if (delivered.length) f.webhooks.redeliver(random.pick(delivered.slice(-30)));
        return;
      }
      case "clockJump":
        count(kind);
        // The host's clock steps; real (monotonic) time does not move.
        time.wall += (random.chance(0.5) ? 1 : -1) * random.int(2, 90) * minute;
        return;
    }
  }

  for (let s = 0; s < stepsPerIteration; s++) {
    const kind = random.weighted(stepKinds);
    history.push({ kind: "step", name: kind });
    await step(kind);
    figures.steps++;
    if (!held) await f.flush();
    await observe();
  }

  // Cleanup: faults off, webhooks through, a reconcile; then nothing App-made may be left without a record.
  f.clearFaults();
  f.proxy.restore();
  if (held) f.webhooks.release();
  await f.flush();
  await waitForStore();
  await beatAll();
  for (let i = 0; i < 2; i++) {
    await sweep(true);
    await f.flush();
  }
  await observe();
  for (const issue of issues) {
    // Any read restores a record the store lost from its claim comment (a human's `/reclaim` too).
    await app.services.core.subject(installationId, repo, issue);
    const snapshot = f.issue(issue);
    const record = await app.stores.claims.get({ installationId, repoId, issue });
    const holds = record && (record.state === "active" || record.state === "human");
    const managed = snapshot.labels.filter((l) => l === "agent:claimed" || l === "agent:stale");
    if (managed.length && !holds) {
      history.push({
        kind: "orphan",
        subject: subjectOf(issue),
        detail: `labels ${managed} with record ${record?.state ?? "none"}`,
      });
    }
    for (const login of snapshot.assignees) {
      const humanMade = login === "alice" && humanAssigned.has(issue);
      if (!humanMade && !(holds && record.actor.login === login)) {
        history.push({
          kind: "orphan",
          subject: subjectOf(issue),
          detail: `@${login} assigned with record ${record?.state ?? "none"} of @${record?.actor.login ?? "-"}`,
        });
      }
    }
  }
  for (const { issue, login } of f.appUnassigned(issues))
    history.push({ kind: "app-unassigned", subject: subjectOf(issue), login });
  // Close the iteration's issues so their claims end and never weigh on later sweeps.
  for (const issue of issues) f.closeIssue(issue);
  await f.flush();
}

describe.each(["github", "gitea"] as const)(
  "randomized fault schedule against the real App, the %s simulator and a dedicated Redis",
  (forge) => {
    beforeAll(() => startForge(forge), 60_000);
    afterAll(async () => {
      await f?.stop();
      console.log(`fault schedule figures (${forge}, seed ${seed}): ${JSON.stringify(figures)}`);
    });

    it(`runs ${forge === "github" ? githubIterations : giteaIterations} seeded iterations and the history checker finds no violation`, {
      timeout: soak ? 3_600_000 : 240_000,
    }, async () => {
      const all: { iteration: number; violations: ReturnType<typeof checkHistory> }[] = [];
      const only = process.env.FAULT_ONLY?.split(",").map(Number);
      for (let i = 0; i < iterations; i++) {
        if (only && !only.includes(i)) {
          figures.iterations++;
          continue;
        }
        const history: HistoryEvent[] = [];
        await runIteration(i, createRandom(seed + i), history);
        const violations = checkHistory(history);
        figures.iterations++;
        figures.histories++;
        figures.events += history.length;
        figures.violations += violations.length;
        if (violations.length) {
          all.push({ iteration: i, violations });
          if (process.env.FAULT_TRACE === "1")
            console.log(JSON.stringify(history, null, 0).replaceAll('},{"kind"', '},\n{"kind"'));
        }
      }
      expect(figures.iterations).toBe(iterations);
      if (!only)
        for (const kind of faultKinds)
          expect(figures.faults[kind] ?? 0, `fault ${kind} was injected`).toBeGreaterThan(0);
      expect(all, `seed ${seed}`).toEqual([]);
    });
  },
);
