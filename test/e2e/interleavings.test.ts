// End to end, invariant 13: every ordered pair of transitions on one subject, the first one's forge write landing late; on GitHub and on Gitea.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LeaseCredentials } from "../../src/agent/client/index.js";
import type { ClaimRecord } from "../../src/domain/claim.js";
import { markerStateOfRecord, verifyClaimMarker } from "../../src/domain/claim-marker.js";
import { testSeal } from "../support/app-harness.js";
import { probeRedis } from "../support/redis.js";
import { repo } from "./support/e2e-world.js";
import { type ForgeWorld as E2eWorld, forges, startForgeWorld } from "./support/forge-worlds.js";

const redisProbe = await probeRedis();
/** Stale after 30 s, reclaimable after 60 s (the world's short config). */
const ttlMs = 30_000;
const reclaimAfterMs = 60_000;

interface Subject {
  issue: number;
  /** The lease of the session that holds the subject when a transition starts (session S). */
  lease?: LeaseCredentials;
}

interface Transition {
  name: string;
  /** Brings a fresh subject to a state where the transition applies (as the first of a pair). */
  prepare(world: E2eWorld, subject: Subject): Promise<void>;
  /** Performs it, on whatever state the subject is in; resolves once its caller has its answer. */
  act(world: E2eWorld, subject: Subject): Promise<void>;
}

const heldBySession: Transition["prepare"] = async (world, subject) => {
  const claimed = await world.agent().claim({
    repo,
    issue: subject.issue,
    actor: { runtime: "claude-code", sessionId: `S${subject.issue}`, sessionKey: sessionKeyOf(subject) },
  });
  subject.lease = claimed.lease;
};

function sessionKeyOf(subject: Subject): string {
  return `session-key-of-S-${subject.issue}`.padEnd(40, "k");
}

/** A call whose refusal is an answer too (409, 410): the pair goes on. */
async function answered(call: Promise<unknown>): Promise<void> {
  await call.catch((error: unknown) => {
    if (!(error instanceof Error) || !("status" in error)) throw error;
  });
}

/** A person's action on the forge, delivered as its webhook; resolves once the App answered it. */
async function asPerson(world: E2eWorld, action: () => void): Promise<void> {
  const before = new Set(world.webhooks.pending());
  action();
  const mine = world.webhooks.pending().filter((seq) => !before.has(seq));
  for (const seq of mine) await world.webhooks.deliverNow(seq);
}

const transitions: Transition[] = [
  {
    name: "claim",
    prepare: async () => undefined,
    act: (world, subject) =>
      answered(
        world
          .agent()
          .claim({ repo, issue: subject.issue, actor: { runtime: "codex", sessionId: `X${subject.issue}` } }),
      ),
  },
  {
    name: "re-claim",
    prepare: heldBySession,
    act: async (world, subject) => {
      await answered(
        world
          .agent()
          .claim({
            repo,
            issue: subject.issue,
            actor: {
              runtime: "claude-code",
              sessionId: `S${subject.issue}`,
              sessionKey: sessionKeyOf(subject),
            },
          })
          .then((claimed) => {
            subject.lease = claimed.lease;
          }),
      );
    },
  },
  {
    name: "takeover",
    prepare: async (world, subject) => {
      await heldBySession(world, subject);
    },
    act: async (world, subject) => {
      world.app.clock.now += ttlMs + 1_000;
      const claimant = world.agent();
      const actor = { runtime: "pi", sessionId: `T${subject.issue}` };
      // The client waits out the grace beat (202) by moving the App's clock, then supersedes (201).
      await answered(claimant.claim({ repo, issue: subject.issue, actor, takeover: true }));
    },
  },
  {
    name: "heartbeat with a phase change",
    prepare: heldBySession,
    act: async (world, subject) => {
      if (subject.lease)
        await answered(world.agent().heartbeat(subject.lease, { phase: `phase ${world.app.clock.now}` }));
    },
  },
  {
    name: "release",
    prepare: heldBySession,
    act: async (world, subject) => {
      if (subject.lease) await answered(world.agent().release(subject.lease, { outcome: "handoff" }));
    },
  },
  {
    name: "stale relabel",
    prepare: heldBySession,
    act: async (world) => {
      world.app.clock.now += ttlMs + 1_000;
      await world.app.services.janitor.sweep();
    },
  },
  {
    name: "reap",
    prepare: heldBySession,
    act: async (world) => {
      world.app.clock.now += reclaimAfterMs + 1_000;
      await world.app.services.janitor.sweep();
    },
  },
  {
    name: "revoke",
    prepare: heldBySession,
    act: (world, subject) =>
      asPerson(world, () => {
        if (world.shown(subject.issue).assignees.includes(world.fleetLogin)) {
          world.person.unassign(subject.issue, [world.fleetLogin]);
        }
      }),
  },
  {
    name: "/reclaim",
    prepare: heldBySession,
    act: (world, subject) => asPerson(world, () => world.person.comment(subject.issue, "/reclaim")),
  },
  {
    name: "/reclaim release",
    prepare: heldBySession,
    act: (world, subject) => asPerson(world, () => world.person.comment(subject.issue, "/reclaim release")),
  },
];

const pairs = transitions.flatMap((first) => transitions.map((second) => ({ first, second })));

/**
 * What the forge should show for the store's record (docs/reference/github-surfaces.md), next to what
 * it shows.
 */
function divergence(world: E2eWorld, issue: number, record: ClaimRecord | null) {
  const shown = world.shown(issue);
  const managed = shown.labels.filter((l) => l === "agent:claimed" || l === "agent:stale").sort();
  const markers = shown.appComments.flatMap((body) => {
    const parsed = verifyClaimMarker(body, testSeal);
    return parsed.kind === "marker" ? [parsed.marker] : [];
  });
  const latest = markers.reduce<(typeof markers)[number] | undefined>(
    (best, m) => (!best || m.generation > best.generation ? m : best),
    undefined,
  );
  const actual = {
    labels: managed,
    assignees: [...shown.assignees].sort(),
    marker: latest
      ? { generation: Math.max(latest.generation, latest.nextGeneration ?? 0), state: latest.state }
      : null,
  };
  if (!record) return { actual, expected: { labels: [], assignees: [], marker: null } };
  const held = record.state === "active" || record.state === "human";
  const expected = {
    labels: record.state === "active" ? [record.staleMarkedAt ? "agent:stale" : "agent:claimed"] : [],
    assignees: held && record.appAssigned ? [record.actor.login] : [],
    marker: { generation: record.generation, state: markerStateOfRecord(record) },
  };
  return { actual, expected };
}

/**
 * Gitea: one App sends its writes one at a time (`serialWriteLimiter`), so the second transition's
 * write waits behind the held one; the held write is let go once the second has had this long to
 * pass the store and the write fence (100 ms), then both finish.
 */
const giteaSecondTurnMs = 400;

describe.skipIf(!redisProbe.available).each(forges)(
  "interleavings of two transitions, the first one's write landing late (%s)",
  (forge) => {
    let world: E2eWorld;
    beforeAll(async () => {
      world = await startForgeWorld(forge, {
        issues: pairs.map((_, i) => ({ number: i + 1, title: `Pair ${i + 1}` })),
        // The second write waits this long for the first before going ahead; the first is corrected after.
        writeFenceWaitMs: 100,
      });
    });
    afterAll(() => world.close());

    const cases = pairs.map((pair, i) => ({
      ...pair,
      issue: i + 1,
      label: `${pair.first.name} → ${pair.second.name}`,
    }));
    it.each(cases)(
      "$label: the forge ends as the store's current generation says",
      async ({ first, second, issue }) => {
        const subject: Subject = { issue };
        await first.prepare(world, subject);
        await world.flush();
        world.webhooks.hold();
        const late = world.holdWrite(issue);
        const firstDone = first.act(world, subject);
        // The first transition's write reaches the forge and waits there; the second runs meanwhile.
        const wrote = await Promise.race([late.arrived.then(() => true), firstDone.then(() => false)]);
        expect(wrote, `${first.name} writes to the forge`).toBe(true);
        if (forge === "github") {
          await second.act(world, subject);
        } else {
          const secondDone = second.act(world, subject);
          await Promise.race([secondDone, new Promise((resolve) => setTimeout(resolve, giteaSecondTurnMs))]);
          late.release();
          await secondDone;
        }
        late.release();
        await firstDone;
        world.webhooks.release();
        await world.flush();

        const record = await world.record(issue);
        const { actual, expected } = divergence(world, issue, record);
        expect(actual).toEqual(expected);
        // The subject leaves the janitor's view, so later pairs' clock moves do not reach it.
        world.person.close(issue);
        await world.flush();
      },
    );
  },
);
