// What the webhook sync handlers are given: providers, config, clock, and the after-transition hook.

import type { RepoConfigSource } from "../config/config-source.js";
import type { SubjectKey } from "../domain/claim.js";
import type { ClaimEvents } from "../lease/transitions/claim-events.js";
import type { AssignmentProvider } from "../providers/assignment-provider.js";
import type { LivenessStore } from "../providers/liveness-store.js";

export interface SyncDeps {
  store: LivenessStore;
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
