// The janitor constructed directly: the memory store, a hand-written assignment provider and a fake clock; no Probot, no HTTP.
import { pino } from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import { defaultRepoConfig, type RepoConfig } from "../../src/config/repo-config.js";
import type { Actor, ClaimRecord, SubjectKey } from "../../src/domain/claim.js";
import { Janitor } from "../../src/janitor/janitor.js";
import type {
  AppliedWrite,
  AssignmentProvider,
  EvidenceChange,
  OpenIssuePage,
  SubjectRef,
  SubjectSnapshot,
  TransitionWrite,
} from "../../src/providers/assignment-provider.js";
import type { InstallationSource } from "../../src/providers/installation-source.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { Stores } from "../../src/providers/stores.js";
import { subjectSnapshot } from "../support/subject-snapshot.js";

const installationId = 42;
const repo = "octo/widgets";
const repoId = 1296269;
const minute = 60_000;
const durations = { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute };
const agent: Actor = { kind: "agent", login: "fleet-bot", sessionId: "session-1" };
const agentNodeId = "U_fleet";

/** The GitHub side as plain data: one snapshot per issue, every write kept in order. */
class FakeAssignments implements AssignmentProvider {
  readonly issues = new Map<number, SubjectSnapshot>();
  readonly writes: { ref: SubjectRef; write: TransitionWrite }[] = [];
  statusReads = 0;

  /** This fake keeps no issue events: an assignment's newest event is taken to be the App's own. */
  async lastEvidenceChange(): Promise<EvidenceChange> {
    return { kind: "added", by: "claim-hold[bot]", byPerson: false };
  }

  async status(ref: SubjectRef): Promise<SubjectSnapshot | null> {
    this.statusReads++;
    return structuredClone(this.issues.get(ref.issue) ?? null);
  }

  async listOpenIssues(
    _ref: Omit<SubjectRef, "issue">,
    options: { labels?: string[] | null },
  ): Promise<OpenIssuePage> {
    const issues = [...this.issues.values()].filter(
      (i) => i.state === "open" && (!options.labels || i.labels.some((l) => options.labels?.includes(l))),
    );
    return { repoId, issues: structuredClone(issues), hasNextPage: false, endCursor: null };
  }

  async listRepositories(): Promise<string[]> {
    return [repo];
  }

  async repositoryName(): Promise<string | null> {
    return repo;
  }

  async apply(ref: SubjectRef, write: TransitionWrite): Promise<AppliedWrite> {
    this.writes.push({ ref, write });
    return { requests: 1 };
  }

  async ensureLabels(): Promise<void> {}
}

const installations: InstallationSource = { listInstallations: async () => [installationId] };

function snapshotOf(issue: number, extra: Partial<SubjectSnapshot> = {}): SubjectSnapshot {
  return subjectSnapshot({
    repoId,
    repo,
    issue,
    assignees: [{ login: agent.login, nodeId: agentNodeId }],
    labels: [defaultRepoConfig.labels.claimed],
    ...extra,
  });
}

let clock: number;
let stores: Stores;
let github: FakeAssignments;
let changed: ClaimRecord[];

function janitorWith(config: RepoConfig = defaultRepoConfig): Janitor {
  return new Janitor({
    stores,
    assignments: github,
    configs: { load: async () => config, peek: () => config },
    now: () => clock,
    sleep: async (ms) => {
      clock += ms;
    },
    log: pino({ enabled: false }),
    installations,
    measure: async (work) => ({ result: await work(), requests: 0 }),
    events: {
      transitioned: async ({ record }) => {
        changed.push(record);
      },
    },
  });
}

/** An agent claim made now on `issue`, its GitHub write committed. */
async function agentClaim(issue: number): Promise<{ key: SubjectKey; record: ClaimRecord }> {
  const key = { installationId, repoId, issue };
  const outcome = await stores.claims.claim({
    key,
    repo,
    actor: agent,
    taskClass: "author",
    durations,
    tokenDigest: `digest-${issue}`,
    takeover: false,
    now: clock,
    minGeneration: 0,
    appAssigned: true,
    issueNodeId: `I_${issue}`,
    assigneeNodeId: agentNodeId,
    caps: { perSession: 10, perLogin: 10 },
  });
  if (outcome.kind !== "created") throw new Error(`claim not created: ${outcome.kind}`);
  await stores.claims.commitClaim(key, outcome.record.generation, {
    commentNodeId: `IC_${issue}`,
    commentId: issue,
  });
  github.issues.set(issue, snapshotOf(issue));
  return { key, record: outcome.record };
}

beforeEach(async () => {
  clock = Date.parse("2026-03-01T09:00:00Z");
  stores = createMemoryStores({ now: () => clock });
  github = new FakeAssignments();
  changed = [];
  await stores.installations.rememberInstallation(installationId);
  // The installation's data began well before the claims, so no store-loss grace applies.
  await stores.claims.epoch(installationId, clock - 24 * 60 * minute);
});

describe("Janitor against the memory store", () => {
  it("reaps an agent claim whose heartbeat stopped longer than reclaimAfter ago: store ended, one write, listeners told", async () => {
    const { key } = await agentClaim(7);
    clock += 61 * minute;

    const report = await janitorWith().sweep();

    expect(report.actions).toEqual([{ subject: `${repo}#7`, action: "reap", reason: expect.any(String) }]);
    expect((await stores.claims.get(key))?.state).toBe("reaped");
    expect(github.writes).toHaveLength(1);
    const { write } = github.writes[0]!;
    expect(write.unassign).toEqual([agentNodeId]);
    expect(write.removeLabels).toEqual([defaultRepoConfig.labels.claimed, defaultRepoConfig.labels.stale]);
    expect(write.addComments?.[0]).toMatch(/^🧹 Reaped generation 1 of /);
    expect(changed.map((r) => r.state)).toEqual(["reaped"]);
    expect(await janitorWith().lastReport()).toEqual(report);
  });

  it("marks a claim silent past its TTL (but not reclaimAfter) stale, and keeps it", async () => {
    const { key } = await agentClaim(8);
    clock += 31 * minute;

    const report = await janitorWith().sweep();

    expect(report.actions.map((a) => a.action)).toEqual(["relabel-stale"]);
    const record = await stores.claims.get(key);
    expect(record?.state).toBe("active");
    expect(record?.staleMarkedAt).toBe(clock);
    expect(github.writes.map((w) => [w.write.removeLabels, w.write.addLabels])).toEqual([
      [[defaultRepoConfig.labels.claimed], [defaultRepoConfig.labels.stale]],
    ]);
  });

  it("never touches a person's assignment: a dead claim a person also took is left, a human claim gets no write", async () => {
    const alice = { login: "alice", nodeId: "U_alice" };
    await agentClaim(9);
    const { key: pickedUp } = await agentClaim(10);
    github.issues.set(
      10,
      snapshotOf(10, { assignees: [{ login: agent.login, nodeId: agentNodeId }, alice] }),
    );
    const humanKey = { installationId, repoId, issue: 11 };
    const { record: human } = await stores.claims.humanClaim({
      key: humanKey,
      repo,
      actor: { kind: "human", login: alice.login },
      now: clock,
      minGeneration: 0,
      release: false,
      appAssigned: false,
    });
    // Its `/reclaim` write landed (a pending one is finished by reconcile, like any unwritten transition).
    await stores.claims.commitClaim(humanKey, human.generation, { commentNodeId: "IC_11", commentId: 11 });
    github.issues.set(11, snapshotOf(11, { assignees: [alice], labels: [] }));
    clock += 61 * minute;

    const report = await janitorWith().sweep({ reconcile: true });

    expect(report.actions.filter((a) => a.action === "reap").map((a) => a.subject)).toEqual([`${repo}#9`]);
    expect(github.writes.map((w) => [w.ref.issue, w.write.unassign])).toEqual([[9, [agentNodeId]]]);
    expect((await stores.claims.get(pickedUp))?.state).toBe("active");
    expect((await stores.claims.get(humanKey))?.state).toBe("human");
  });

  it("writes nothing on a dry run: the reap is reported, the store and GitHub stay as they were", async () => {
    const { key } = await agentClaim(11);
    clock += 61 * minute;
    const before = await stores.claims.get(key);

    const report = await janitorWith().sweep({ dryRun: true });

    expect(report.dryRun).toBe(true);
    expect(report.actions.map((a) => a.action)).toEqual(["reap"]);
    expect(github.writes).toEqual([]);
    expect(await stores.claims.get(key)).toEqual(before);
    expect(changed).toEqual([]);
    expect(await janitorWith().lastReport()).toBeNull();
  });

  it("writes nothing when the repository's config asks for a dry run", async () => {
    const { key } = await agentClaim(12);
    clock += 61 * minute;
    const config = { ...defaultRepoConfig, janitor: { ...defaultRepoConfig.janitor, dryRun: true } };

    const report = await janitorWith(config).sweep();

    expect(report.actions.map((a) => a.action)).toEqual(["reap"]);
    expect(github.writes).toEqual([]);
    expect((await stores.claims.get(key))?.state).toBe("active");
  });

  it("reads nothing from GitHub when no claim is due", async () => {
    await agentClaim(13);
    clock += 5 * minute;

    const report = await janitorWith().sweep();

    expect(report).toMatchObject({ examined: 0, actions: [], installations: 1 });
    expect(github.statusReads).toBe(0);
    expect(github.writes).toEqual([]);
  });
});
