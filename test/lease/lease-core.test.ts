// The lease core's rules without Probot: LeaseCore over the memory store and a hand-written GitHub fake.

import pino from "pino";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { defaultRepoConfig, RepoConfig } from "../../src/config/repo-config.js";
import { parseClaimMarker } from "../../src/domain/claim-marker.js";
import { type ClaimRequest, LeaseCore, LeaseRefused } from "../../src/lease/lease-core.js";
import { createTokenMinter } from "../../src/lease/tokens.js";
import { unheardClaimEvents } from "../../src/lease/transitions/claim-events.js";
import type {
  AppliedWrite,
  AssignmentProvider,
  EvidenceChange,
  GitHubUser,
  SubjectRef,
  SubjectSnapshot,
  TransitionWrite,
} from "../../src/providers/assignment-provider.js";
import { GitHubWriteError } from "../../src/providers/assignment-provider.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { Stores } from "../../src/providers/stores.js";
import { subjectSnapshot } from "../support/subject-snapshot.js";

const installationId = 42;
const repoId = 7;
const fleetBot: GitHubUser = { login: "fleet-bot", id: 1, nodeId: "U_fleet" };
const otherBot: GitHubUser = { login: "other-bot", id: 2, nodeId: "U_other" };

/**
 * One open issue as GitHub would show it, changed by the writes the core applies: assignments,
 * labels and the App's claim comments (their markers parsed as the real provider parses them).
 */
class FakeAssignments implements AssignmentProvider {
  readonly writes: TransitionWrite[] = [];
  statusReads = 0;
  /** The next `apply` calls that GitHub refuses. */
  refuseNext = 0;
  readonly #users = new Map([fleetBot, otherBot].map((u) => [u.nodeId, u.login]));
  readonly issue: SubjectSnapshot = subjectSnapshot({
    repoId,
    repo: "octo/widgets",
    issue: 12,
    title: "Fix the parser",
  });

  /** This fake keeps no issue events: an assignment's newest event is taken to be the App's own. */
  async lastEvidenceChange(): Promise<EvidenceChange> {
    return { kind: "added", by: "claim-hold[bot]", byPerson: false };
  }

  async status(ref: SubjectRef): Promise<SubjectSnapshot | null> {
    this.statusReads += 1;
    if (ref.issue !== this.issue.issue) return null;
    return structuredClone(this.issue);
  }

  async listOpenIssues() {
    return { repoId, issues: [structuredClone(this.issue)], hasNextPage: false, endCursor: null };
  }

  async listRepositories() {
    return [this.issue.repo];
  }

  async repositoryName(_installationId: number, id: number) {
    return id === repoId ? this.issue.repo : null;
  }

  async apply(_ref: SubjectRef, write: TransitionWrite): Promise<AppliedWrite> {
    this.writes.push(write);
    if (this.refuseNext > 0) {
      this.refuseNext -= 1;
      throw new GitHubWriteError("GitHub refused the write", 422);
    }
    const issue = this.issue;
    const unassign = new Set(write.unassign ?? []);
    issue.assignees = issue.assignees.filter((a) => !unassign.has(a.nodeId));
    for (const nodeId of write.assign ?? []) {
      if (!issue.assignees.some((a) => a.nodeId === nodeId)) {
        issue.assignees.push({ login: this.#users.get(nodeId) ?? nodeId, nodeId });
      }
    }
    issue.labels = [...new Set([...issue.labels, ...(write.addLabels ?? [])])].filter(
      (l) => !(write.removeLabels ?? []).includes(l),
    );
    for (const edit of write.editComments ?? []) {
      const parsed = parseClaimMarker(edit.body);
      const comment = issue.claimComments.find((c) => c.nodeId === edit.nodeId);
      if (comment && parsed.kind === "marker") comment.marker = parsed.marker;
    }
    if (write.createClaimComment === undefined) return { requests: 1 };
    const parsed = parseClaimMarker(write.createClaimComment);
    if (parsed.kind !== "marker") throw new Error("the claim comment carries no marker");
    const databaseId = issue.claimComments.length + 1;
    const claimComment = { nodeId: `IC_${databaseId}`, databaseId };
    issue.claimComments.push({ ...claimComment, marker: parsed.marker });
    return { claimComment, requests: 1 };
  }

  async ensureLabels(): Promise<void> {}
}

let now: number;
let stores: Stores;
let github: FakeAssignments;
let core: LeaseCore;

beforeEach(() => {
  now = Date.parse("2026-03-02T10:00:00.000Z");
  stores = createMemoryStores({ now: () => now });
  github = new FakeAssignments();
  let minted = 0;
  core = new LeaseCore({
    stores,
    assignments: github,
    configs: { load: async () => defaultRepoConfig, peek: () => defaultRepoConfig },
    tokens: createTokenMinter("lease-core-test-secret", (n) => Buffer.alloc(n, ++minted)),
    now: () => now,
    log: pino({ level: "silent" }),
    events: unheardClaimEvents,
  });
});

function claimBy(user: GitHubUser, sessionId: string, extra: Partial<ClaimRequest> = {}): ClaimRequest {
  return {
    installationId,
    repo: "octo/widgets",
    issue: 12,
    user,
    actor: { runtime: "codex", sessionId },
    taskClass: "author",
    takeover: false,
    ...extra,
  };
}

/** The lease of a claim that created a new incarnation. */
async function claimedLease(request: ClaimRequest) {
  const outcome = await core.claim(request);
  if (outcome.kind !== "claimed") return expect.fail(`claimed, not ${outcome.kind}`);
  return outcome.lease;
}

/** The refusal a call was answered with: its machine code, sentence and details. */
async function refusalOf(call: Promise<unknown>) {
  const error = await call.then(
    () => expect.fail("the call was not refused"),
    (e: unknown) => e,
  );
  // The core answers in its own terms: a code, never an HTTP status.
  expect(error).toBeInstanceOf(LeaseRefused);
  expect(error).not.toHaveProperty("status");
  const { code, message, details } = error as LeaseRefused;
  return { code, message, details };
}

describe("LeaseCore", () => {
  it("claims a free issue: one read, one write that assigns, labels and comments, a lease of generation 1", async () => {
    const result = await core.claim(claimBy(fleetBot, "s1"));

    if (result.kind !== "claimed") expect.fail(`claimed, not ${result.kind}`);
    expect(result.lease).toMatchObject({
      id: `${installationId}.${repoId}.12.1`,
      subject: "octo/widgets#12",
      generation: 1,
      taskClass: "author",
      branch: "agent/s1/12-fix-the-parser",
    });
    expect(result.lease.token).toMatch(/^clh_/);
    expect(result.resume).toBeNull();
    expect(github.statusReads).toBe(1);
    expect(github.writes).toHaveLength(1);
    expect(github.writes[0]).toMatchObject({ assign: ["U_fleet"], addLabels: ["agent:claimed"] });
    expect(github.issue.assignees.map((a) => a.login)).toEqual(["fleet-bot"]);
    const record = await stores.claims.get({ installationId, repoId, issue: 12 });
    expect(record).toMatchObject({
      generation: 1,
      state: "active",
      commentNodeId: "IC_1",
      appAssigned: true,
    });
  });

  it("refuses a claim of an issue another session holds, naming the holder, and writes nothing", async () => {
    await core.claim(claimBy(fleetBot, "s1"));
    now += 60_000;

    const refusal = await refusalOf(core.claim(claimBy(otherBot, "s2")));

    expect(refusal).toMatchObject({
      code: "held",
      message: "octo/widgets#12 is held by another session.",
      details: {
        holder: { kind: "agent", login: "fleet-bot", sessionId: "s1" },
        generation: 1,
        state: "active",
      },
    });
    expect(github.writes).toHaveLength(1);
  });

  it("refuses a claim of an issue a person is assigned to, without asking the store to claim", async () => {
    github.issue.assignees = [{ login: "alice", nodeId: "U_alice" }];

    expect(await refusalOf(core.claim(claimBy(fleetBot, "s1")))).toEqual({
      code: "human_held",
      message: "octo/widgets#12 is assigned to someone the App did not assign.",
      details: { assignees: ["alice"] },
    });
    expect(await stores.claims.get({ installationId, repoId, issue: 12 })).toBeNull();
    expect(github.writes).toEqual([]);
  });

  it("rolls a claim back when GitHub refuses its write: nothing is kept, and retrying succeeds", async () => {
    github.refuseNext = 1;

    const refusal = await refusalOf(core.claim(claimBy(fleetBot, "s1")));

    expect(refusal.code).toBe("github_failed");
    expect(await stores.claims.get({ installationId, repoId, issue: 12 })).toBeNull();
    // The failed write, then the compensation that removes what it may have added.
    expect(github.writes).toHaveLength(2);
    expect(github.writes[1]).toMatchObject({ unassign: ["U_fleet"], removeLabels: ["agent:claimed"] });
    expect((await core.claim(claimBy(fleetBot, "s1"))).kind).toBe("claimed");
  });

  it("answers a heartbeat with another token as unauthorized, and one with the lease's token", async () => {
    const lease = await claimedLease(claimBy(fleetBot, "s1"));
    now += 60_000;

    expect(await refusalOf(core.heartbeat(lease.id, "clh_not-this-lease", {}))).toMatchObject({
      code: "unauthorized",
      message: "The lease token is not valid for this lease.",
    });
    expect(await core.heartbeat(lease.id, lease.token, { phase: "testing" })).toEqual({
      generation: 1,
      expiresAt: new Date(now + defaultRepoConfig.taskClasses.author.ttl).toISOString(),
      state: "active",
    });
    expect(await refusalOf(core.heartbeat("not-a-lease-id", lease.token, {}))).toMatchObject({
      code: "not_found",
    });
  });

  it("asks the store for a lease's whole record at its first heartbeat only, and answers alike either way", async () => {
    const lease = await claimedLease(
      claimBy(fleetBot, "s1", { sessionKey: "session-key-of-s1-0123456789abcdef" }),
    );
    const asked = vi.spyOn(stores.claims, "heartbeat");
    const wantedRecord = () => asked.mock.calls.map(([input]) => input.wantRecord === true);
    // A process that never saw the lease (a fresh core: another replica, a restart) answers the same.
    const fresh = () =>
      new LeaseCore({
        stores,
        assignments: github,
        configs: { load: async () => defaultRepoConfig, peek: () => defaultRepoConfig },
        tokens: createTokenMinter("lease-core-test-secret"),
        now: () => now,
        log: pino({ level: "silent" }),
        events: unheardClaimEvents,
      });
    const waitUntil = new Date(now + 30 * 60_000).toISOString();
    for (const request of [
      {},
      { phase: "coding" },
      { waitUntil },
      {},
      { needsHuman: true, blocker: "keys?" },
      {},
    ]) {
      now += 60_000;
      const answer = await core.heartbeat(lease.id, lease.token, request);
      // The same heartbeat again, at the same time, is the same heartbeat.
      expect(await fresh().heartbeat(lease.id, lease.token, request)).toEqual(answer);
    }
    // Each fresh core asked once; the first core only at its first heartbeat.
    expect(wantedRecord().filter((_, i) => i % 2 === 0)).toEqual([true, false, false, false, false, false]);
    expect(wantedRecord().filter((_, i) => i % 2 === 1)).toEqual([true, true, true, true, true, true]);
    // The wait shows as waiting while it lasts, whatever the heartbeat after it said.
    now += 60_000;
    expect(await core.heartbeat(lease.id, lease.token, {})).toMatchObject({ state: "waiting" });

    // A re-claim's new token asks again (facts are kept per token), then no more.
    asked.mockClear();
    const again = await core.claim(
      claimBy(fleetBot, "s1", { sessionKey: "session-key-of-s1-0123456789abcdef" }),
    );
    if (again.kind !== "reclaimed") expect.fail(`reclaimed, not ${again.kind}`);
    expect(again.lease.id).toBe(lease.id);
    expect(again.lease.token).not.toBe(lease.token);
    now += 60_000;
    await core.heartbeat(again.lease.id, again.lease.token, {});
    await core.heartbeat(again.lease.id, again.lease.token, {});
    expect(wantedRecord()).toEqual([true, false]);
  });

  it("edits the claim comment of a stale-marked claim at a heartbeat whose lease facts it already knows", async () => {
    const lease = await claimedLease(claimBy(fleetBot, "s1"));
    now += 60_000;
    await core.heartbeat(lease.id, lease.token, {});
    const key = { installationId, repoId, issue: 12 };
    now += defaultRepoConfig.taskClasses.author.ttl;
    await stores.claims.markStale({ key, generation: 1, now, requireSilentMs: 1, storeEpoch: 0 });
    github.issue.labels = ["agent:stale"];
    const writes = github.writes.length;
    now += 60_000;
    expect(await core.heartbeat(lease.id, lease.token, {})).toMatchObject({ state: "active" });
    expect(github.writes.slice(writes)).toMatchObject([
      { addLabels: ["agent:claimed"], removeLabels: ["agent:stale"], editComments: [{ nodeId: "IC_1" }] },
    ]);
    expect(github.issue.labels).toEqual(["agent:claimed"]);
  });

  it("releases a lease: GitHub's side is undone in one write, and the lease is gone afterwards", async () => {
    const lease = await claimedLease(claimBy(fleetBot, "s1"));

    expect(await core.release(lease.id, lease.token, { outcome: "abandoned" })).toEqual({
      released: true,
      outcome: "abandoned",
      generation: 1,
    });
    expect(github.writes).toHaveLength(2);
    expect(github.writes[1]).toMatchObject({
      unassign: ["U_fleet"],
      removeLabels: ["agent:claimed", "agent:stale"],
    });
    expect(github.issue.assignees).toEqual([]);
    expect(github.issue.claimComments[0]?.marker.state).toBe("released");
    expect(await refusalOf(core.verify(lease.id, lease.token))).toMatchObject({
      code: "gone",
      details: { reason: "released" },
    });
  });
});

describe("LeaseCore: a budget that pauses", () => {
  const pausingDeps = () => ({
    stores,
    assignments: github,
    tokens: createTokenMinter("lease-core-test-secret", (n) => Buffer.alloc(n, 7)),
    now: () => now,
    log: pino({ level: "silent" }),
    events: unheardClaimEvents,
  });
  const pausingCore = (config: RepoConfig) =>
    new LeaseCore({ ...pausingDeps(), configs: { load: async () => config, peek: () => config } });

  it("a pause GitHub refused to show is not kept: the heartbeat fails safe to retry, and its retry asks", async () => {
    const core = pausingCore(RepoConfig.parse({ budgets: { author: { maxUsd: 2 } } }));
    const outcome = await core.claim(claimBy(fleetBot, "s1"));
    if (outcome.kind !== "claimed") return expect.fail(`claimed, not ${outcome.kind}`);
    const { lease } = outcome;
    github.refuseNext = 1;
    expect(await refusalOf(core.heartbeat(lease.id, lease.token, { usage: { costUsd: 3 } }))).toMatchObject({
      code: "github_failed",
    });
    expect(await stores.claims.get({ installationId, repoId, issue: 12 })).not.toHaveProperty("budgetPaused");
    expect(await core.heartbeat(lease.id, lease.token, { usage: { costUsd: 3 } })).toMatchObject({
      paused: "budget",
    });
    expect(github.writes.at(-1)).toMatchObject({ addLabels: ["agent:over-budget"] });
    expect(github.issue.labels).toContain("agent:over-budget");
  });

  it("pauses at maxUsd (label and ask once, every answer paused), and resumes when maxUsd is raised above the spend", async () => {
    let config = RepoConfig.parse({ budgets: { author: { maxUsd: 2 } } });
    const paused = new LeaseCore({
      ...pausingDeps(),
      configs: { load: async () => config, peek: () => config },
    });
    const outcome = await paused.claim(claimBy(fleetBot, "s1"));
    if (outcome.kind !== "claimed") return expect.fail(`claimed, not ${outcome.kind}`);
    const { lease } = outcome;
    const before = github.writes.length;

    now += 1_000;
    expect(await paused.heartbeat(lease.id, lease.token, { usage: { costUsd: 2.5 } })).toMatchObject({
      state: "waiting",
      paused: "budget",
    });
    expect(github.writes.slice(before)).toEqual([
      {
        subjectNodeId: github.issue.nodeId,
        addLabels: ["agent:over-budget"],
        addComments: [expect.stringContaining("($2.50 of $2.00 for author work")],
        fence: expect.anything(),
      },
    ]);
    // Paused already: more usage past the limit and plain beats write nothing and stay paused.
    now += 1_000;
    expect(await paused.heartbeat(lease.id, lease.token, { usage: { costUsd: 2.6 } })).toMatchObject({
      paused: "budget",
    });
    expect(await paused.heartbeat(lease.id, lease.token, {})).toMatchObject({ paused: "budget" });
    expect(github.writes).toHaveLength(before + 1);

    // maxUsd raised in the config: the next usage report lifts the pause and takes the label off.
    config = RepoConfig.parse({ budgets: { author: { maxUsd: 10 } } });
    now += 1_000;
    const resumed = await paused.heartbeat(lease.id, lease.token, { usage: { costUsd: 2.7 } });
    expect(resumed).toMatchObject({ state: "active" });
    expect(resumed).not.toHaveProperty("paused");
    expect(github.writes.at(-1)).toMatchObject({ removeLabels: ["agent:over-budget"] });
    expect(await stores.claims.get({ installationId, repoId, issue: 12 })).not.toHaveProperty("budgetPaused");
  });
});
