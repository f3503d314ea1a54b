// The read side of the core (docs/reference/http-api.md#reads): one subject's joined state, and a repository's inventory.

import { microsToUsd } from "../../budget/usage.js";
import type { RepoConfig } from "../../config/repo-config.js";
import type { DerivedState } from "../../contract/derived-states.js";
import {
  type Actor,
  type ClaimRecord,
  type SubjectKey,
  subjectName,
  type TaskClass,
  type Transition,
} from "../../domain/claim.js";
import { expiresAt, livenessOf } from "../../domain/liveness.js";
import type { SubjectSnapshot } from "../../providers/assignment-provider.js";
import type { HeartbeatGaps } from "../../providers/liveness-store.js";
import { iso } from "../outcomes.js";
import type { LeaseCoreDeps } from "../ports.js";
import { restoreFromComment } from "../recovery/recovery.js";
import { latestMarker } from "../recovery/restore-from-comments.js";
import { refused } from "../refusals.js";
import { liveScopeOverlaps, type ScopeOverlap } from "../scope/scope-overlap.js";
import { stateOfSubject } from "./subject-state.js";

/** One row of the inventory (docs/reference/http-api.md#get-apiv1reposownerrepoclaimsstatelimit--inventory): a subject's derived state joined with its claim record. */
export interface InventoryRow {
  subject: string;
  title: string | null;
  state: DerivedState;
  reasons: string[];
  actor: Actor | null;
  generation: number | null;
  taskClass: TaskClass | null;
  branch: string | null;
  claimedAt: string | null;
  lastHeartbeatAt: string | null;
  expiresAt: string | null;
  phase: string | null;
  blocker: string | null;
  linkedPullRequests: number[];
  /** Open PRs closing the subject that block nothing (a fork's or a reader's); present when there are any. */
  outsiderPullRequests?: { number: number; author: string }[];
  claimAgeSeconds: number | null;
  /** What agents spent on the subject, every generation together (docs/agents.md#spend-and-budgets). */
  spendUsd: number;
  /** GitHub's assignees; null when the row was built without a GitHub snapshot. */
  assignees: string[] | null;
  /** Present only when other live claims' declared scopes intersect this one's. */
  scope?: string[];
  overlaps?: ScopeOverlap[];
}

/** One subject's inventory row with its claim history, times as ISO strings. */
export interface SubjectView extends InventoryRow {
  history: (Omit<Transition, "at"> & { at: string })[];
  /** The live claim's gaps between its accepted heartbeats (ms, oldest first); present once it beat. */
  heartbeatGapsMs?: number[];
}

export interface Inventory {
  claims: InventoryRow[];
  truncated: boolean;
}

type ReadPorts = Pick<LeaseCoreDeps, "stores" | "assignments" | "configs" | "now" | "log">;

/**
 * Other live claims of the repository whose declared scope intersects this one's: a warning, never
 * a refusal. Costs one store read (the repository's records), never a GitHub request.
 */
export async function overlapsOf(
  ports: Pick<LeaseCoreDeps, "stores" | "now">,
  record: ClaimRecord,
): Promise<ScopeOverlap[]> {
  if (!record.scope?.length) return [];
  const records = await ports.stores.index.listRepository(record.installationId, record.repoId, 200);
  return liveScopeOverlaps(record.scope, record, records, ports.now());
}

/** One subject's joined state (store ⋈ GitHub) with its claim history. */
export async function subjectView(
  ports: ReadPorts,
  installationId: number,
  repo: string,
  issue: number,
): Promise<SubjectView> {
  return (await subjectRead(ports, installationId, repo, issue)).view;
}

/** `subjectView` with the subject's store key, for readers that go on to the store (the dashboard's subject page). */
export async function subjectRead(
  ports: ReadPorts,
  installationId: number,
  repo: string,
  issue: number,
): Promise<{ key: SubjectKey; view: SubjectView; heartbeatGaps: HeartbeatGaps | null }> {
  const { stores, assignments, now: clock } = ports;
  const snapshot = await assignments.status({ installationId, repo, issue });
  if (!snapshot) throw refused({ code: "not_found", message: `${repo}#${issue} is not an issue.` });
  const key: SubjectKey = { installationId, repoId: snapshot.repoId, issue: snapshot.issue };
  const now = clock();
  await restoreFromComment(ports, key, snapshot, latestMarker(snapshot), now);
  const [record, history, heartbeatGaps, epoch, config, [spendMicros]] = await Promise.all([
    stores.claims.get(key),
    stores.claims.history(key),
    stores.claims.heartbeatGaps(key),
    stores.claims.epoch(installationId, now),
    ports.configs.load(installationId, snapshot.repo),
    stores.spend.spendOf([key]),
  ]);
  const overlaps = record?.state === "active" ? await overlapsOf(ports, record) : [];
  const live = record?.state === "active" && heartbeatGaps?.generation === record.generation;
  return {
    key,
    view: {
      ...inventoryRow(snapshot, record, epoch, config, clock(), overlaps, spendMicros),
      history: history.map((t) => ({ ...t, at: iso(t.at) })),
      ...(live ? { heartbeatGapsMs: heartbeatGaps.gapsMs } : {}),
    },
    heartbeatGaps,
  };
}

/**
 * The inventory (docs/reference/http-api.md#get-apiv1reposownerrepoclaimsstatelimit--inventory): the store's claims
 * of a repository joined with one bounded read of its open issues (those assigned or carrying a managed
 * label), newest activity first.
 */
export async function inventory(
  ports: ReadPorts,
  installationId: number,
  repo: string,
  options: { state?: string; limit: number },
): Promise<Inventory> {
  const { stores, assignments, configs, now: clock } = ports;
  const [config, listing] = await Promise.all([
    configs.load(installationId, repo),
    assignments.listOpenIssues({ installationId, repo }, { first: 100 }),
  ]);
  if (listing.repoId === null) throw refused({ code: "not_found", message: `No repository ${repo}.` });
  const now = clock();
  const [records, epoch] = await Promise.all([
    stores.index.listRepository(installationId, listing.repoId, 200),
    stores.claims.epoch(installationId, now),
  ]);
  const byIssue = new Map(records.map((r) => [r.issue, r]));
  const overlapsOfRecord = (record: ClaimRecord | null) =>
    record?.state === "active" && livenessOf(record, now) === "live"
      ? liveScopeOverlaps(record.scope, record, records, now)
      : [];
  const managed = [config.labels.claimed, config.labels.stale];
  const rows: { activity: number; row: InventoryRow }[] = [];
  const seen = new Set<number>();
  for (const snapshot of listing.issues) {
    const record = byIssue.get(snapshot.issue) ?? null;
    const relevant =
      record || snapshot.assignees.length > 0 || snapshot.labels.some((l) => managed.includes(l));
    if (!relevant) continue;
    seen.add(snapshot.issue);
    rows.push({
      activity: activityOf(record, snapshot.updatedAt),
      row: inventoryRow(snapshot, record, epoch, config, clock(), overlapsOfRecord(record)),
    });
  }
  for (const record of records) {
    if (seen.has(record.issue) || (record.state !== "active" && record.state !== "human")) continue;
    rows.push({
      activity: activityOf(record, 0),
      row: inventoryRow(null, record, epoch, config, clock(), overlapsOfRecord(record)),
    });
  }
  const filtered = rows
    .filter(({ row }) => !options.state || row.state === options.state)
    .sort((a, b) => b.activity - a.activity);
  const shown = filtered.slice(0, options.limit).map(({ row }) => row);
  // One store read for the spend of every row shown.
  const spends = await stores.spend.spendOf(
    shown.map((row) => ({ installationId, repoId: listing.repoId!, issue: issueOf(row.subject) })),
  );
  return {
    claims: shown.map((row, i) => ({ ...row, spendUsd: microsToUsd(spends[i] ?? 0) })),
    truncated: filtered.length > options.limit || listing.hasNextPage,
  };
}

/**
 * The inventory row of one subject (docs/reference/http-api.md#get-apiv1reposownerrepoclaimsstatelimit--inventory);
 * without a snapshot, GitHub's side is unknown.
 * `overlaps` (other live claims whose declared scope intersects this one's) add the reason
 * `scope-overlap` and an `overlaps` field; rows without any carry neither.
 */
export function inventoryRow(
  snapshot: SubjectSnapshot | null,
  record: ClaimRecord | null,
  storeEpoch: number,
  config: RepoConfig,
  now: number,
  overlaps: readonly ScopeOverlap[] = [],
  spendMicros = 0,
): InventoryRow {
  const derived = stateOfSubject(snapshot, record, storeEpoch, now, config);
  const { state } = derived;
  const reasons = overlaps.length > 0 ? [...derived.reasons, "scope-overlap"] : derived.reasons;
  const repo = snapshot?.repo ?? record?.repo ?? "";
  const issue = snapshot?.issue ?? record?.issue ?? 0;
  return {
    subject: subjectName(repo, issue),
    title: snapshot?.title ?? record?.title ?? null,
    state,
    reasons,
    actor: record?.actor ?? null,
    generation: record?.generation ?? null,
    taskClass: record?.taskClass ?? null,
    branch: record?.branch ?? null,
    claimedAt: record ? iso(record.claimedAt) : null,
    lastHeartbeatAt: record ? iso(record.lastHeartbeatAt) : null,
    expiresAt: record?.state === "active" ? iso(expiresAt(record)) : null,
    phase: record?.phase ?? null,
    blocker: record?.blocker ?? null,
    linkedPullRequests: snapshot?.openPullRequests.map((pr) => pr.number) ?? [],
    ...(snapshot?.outsiderPullRequests?.length
      ? {
          outsiderPullRequests: snapshot.outsiderPullRequests.map((pr) => ({
            number: pr.number,
            author: pr.author,
          })),
        }
      : {}),
    claimAgeSeconds: record ? Math.max(0, Math.round((now - record.claimedAt) / 1000)) : null,
    spendUsd: microsToUsd(spendMicros),
    assignees: snapshot ? snapshot.assignees.map((a) => a.login) : null,
    ...(overlaps.length > 0 ? { scope: record?.scope ?? [], overlaps: [...overlaps] } : {}),
  };
}

function issueOf(subject: string): number {
  return Number(subject.slice(subject.lastIndexOf("#") + 1));
}

function activityOf(record: ClaimRecord | null, updatedAt: number): number {
  return Math.max(updatedAt, record?.lastHeartbeatAt ?? 0, record?.claimedAt ?? 0, record?.endedAt ?? 0);
}
