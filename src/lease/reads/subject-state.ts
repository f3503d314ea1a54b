// Joins a GitHub snapshot, a store record and the repository config into the evidence a derived state is judged on (docs/reference/http-api.md#get-apiv1reposownerrepoclaimsstatelimit--inventory).
import type { RepoConfig } from "../../config/repo-config.js";
import type { ClaimRecord } from "../../domain/claim.js";
import type { SubjectSnapshot } from "../../providers/assignment-provider.js";
import { type DerivedClaimState, deriveState, type SubjectEvidence } from "./derive-state.js";

/** `snapshot` null: GitHub was not read for this subject (its evidence is unknown, not empty). */
export function subjectEvidence(
  snapshot: SubjectSnapshot | null,
  record: ClaimRecord | null,
  storeEpoch: number,
  now: number,
  config: RepoConfig,
): SubjectEvidence {
  const generation = record?.generation;
  const lastPushAt = Math.max(record?.lastPushAt ?? 0, snapshot?.branchCommittedAt ?? 0);
  return {
    record,
    now,
    storeEpoch,
    assignees: snapshot ? snapshot.assignees.map((a) => a.login) : null,
    labels: snapshot ? snapshot.labels : null,
    managedLabels: config.labels,
    openPullRequests: snapshot?.openPullRequests ?? [],
    ...(lastPushAt > 0 ? { lastPushAt } : {}),
    ...(snapshot ? { lastHumanActivityAt: snapshot.updatedAt } : {}),
    humanIdleDays: config.humanIdleDays,
    maxWaitMs: config.maxWait,
    hasClaimComment: snapshot ? snapshot.claimComments.some((c) => c.marker.generation === generation) : null,
    exemptLabels: config.janitor.exemptLabels,
  };
}

/** The derived state of one subject with its reason codes (docs/reference/http-api.md#get-apiv1reposownerrepoclaimsstatelimit--inventory). */
export function stateOfSubject(
  snapshot: SubjectSnapshot | null,
  record: ClaimRecord | null,
  storeEpoch: number,
  now: number,
  config: RepoConfig,
): DerivedClaimState {
  return deriveState(subjectEvidence(snapshot, record, storeEpoch, now, config));
}
