// What becomes of a live agent claim whose App-made assignment the subject no longer shows: put back when the App's own late write took it off, the claim revoked when a person did, left alone when nobody can tell.
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord } from "../domain/claim.js";
import { countsAsPerson } from "../domain/trust.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import { endClaim } from "../lease/transitions/end-claim.js";
import { removalRevokedNote } from "../lease/transitions/ended-write.js";
import {
  type AssignmentProvider,
  type SubjectRef,
  type SubjectSnapshot,
  subjectRefOf,
} from "../providers/assignment-provider.js";
import { lostAppAssignment } from "./plan-repairs.js";
import { type SweepRun, subjectName, writesHeld } from "./sweep-types.js";

export type LostAssignment = { kind: "reassign" } | { kind: "revoke"; by: string } | { kind: "leave" };

/**
 * Null while the assignment stands. Else the newest change to it (one history read): a removal by
 * no person (a late write of the App's, a reap landing after the next claim) is put back; a
 * person's — whose webhook was left undecided past the delivery wait — revokes the claim as the
 * webhook would have (invariant 5; a fleet login's removal counts for nothing, as on the webhook);
 * a history that cannot tell leaves the assignment off and the claim as it is.
 */
export async function lostAssignment(
  deps: {
    assignments: Pick<AssignmentProvider, "lastEvidenceChange">;
    fleet?: Pick<FleetLogins, "actorKind">;
  },
  ref: SubjectRef,
  record: ClaimRecord,
  snapshot: SubjectSnapshot,
  config: RepoConfig,
): Promise<LostAssignment | null> {
  if (!lostAppAssignment(record, snapshot)) return null;
  const change = await deps.assignments.lastEvidenceChange(ref, { assignee: record.actor.login });
  if (change.kind !== "removed") return { kind: "leave" };
  if (!change.byPerson) return { kind: "reassign" };
  const holder = [{ marker: { actor: record.actor } }];
  const account = { login: change.by, bot: false, ownApp: false };
  const kind = deps.fleet
    ? await deps.fleet.actorKind(record.installationId, account, config, holder)
    : "person";
  return countsAsPerson(kind, "claim-removal") ? { kind: "revoke", by: change.by } : { kind: "leave" };
}

/** A person took the claim's assignment off and its webhook went undecided: revoked as it would have. */
export async function revokeForRemoval(run: SweepRun, record: ClaimRecord, by: string, config: RepoConfig) {
  const { deps, report } = run;
  report.actions.push({
    subject: subjectName(record.repo, record.issue),
    action: "repair",
    reason: "assignment-removed-by-person",
  });
  if (writesHeld(run, config)) return;
  await endClaim(deps, {
    end: {
      key: record,
      generation: record.generation,
      now: deps.now(),
      to: "revoked",
      bump: true,
      by: { kind: "human", login: by },
    },
    ref: subjectRefOf(record),
    config,
    note: removalRevokedNote(by, "assignment", record.generation),
  });
}
