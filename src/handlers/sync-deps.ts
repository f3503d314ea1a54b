// What the webhook sync handlers are given: providers, config, clock, and the after-transition hook.

import type { Logger } from "pino";
import type { RepoConfigSource } from "../config/config-source.js";
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord, SubjectKey } from "../domain/claim.js";
import type { ClaimEvents } from "../lease/transitions/claim-events.js";
import { type EndClaimResult, endClaim } from "../lease/transitions/end-claim.js";
import { type AssignmentProvider, subjectRefOf } from "../providers/assignment-provider.js";
import type { Stores } from "../providers/stores.js";

export interface SyncDeps {
  stores: Stores;
  assignments: AssignmentProvider;
  configs: RepoConfigSource;
  now: () => number;
  /** Told of each transition a webhook makes (checks of linked PRs are re-run). */
  events: ClaimEvents;
}

/** The subject a webhook payload is about. */
export function subjectKeyOf(payload: {
  installation?: { id: number } | null;
  repository: { id: number };
  issue: { number: number };
}): SubjectKey | null {
  if (!payload.installation) return null;
  return {
    installationId: payload.installation.id,
    repoId: payload.repository.id,
    issue: payload.issue.number,
  };
}

/**
 * A person's act on GitHub (closing the issue, removing the claim's assignment or label) ends the
 * claim it was about, through the one end-a-claim path.
 */
export function endByPerson(
  deps: SyncDeps,
  log: Logger,
  act: { record: ClaimRecord; config: RepoConfig; by: string },
  end: { to: "completed" | "revoked"; bump: boolean; note?: string; keepAssignee?: boolean },
): Promise<EndClaimResult> {
  const { record, config, by } = act;
  return endClaim(
    { ...deps, log },
    {
      end: {
        key: record,
        generation: record.generation,
        now: deps.now(),
        to: end.to,
        bump: end.bump,
        by: { kind: "human", login: by },
      },
      ref: subjectRefOf(record),
      config,
      ...(end.note !== undefined ? { note: end.note } : {}),
      ...(end.keepAssignee ? { keepAssignee: true } : {}),
    },
  );
}
