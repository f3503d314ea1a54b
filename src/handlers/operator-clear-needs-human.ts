// The dashboard's "clear needs-human" (docs/deploy.md#operator-actions): the holder's ask withdrawn (which a person's removal of the label does not do), the failure breaker reset, the label off and the holder's stream told — fenced by the generation the page showed, with a comment like the take-back's; or, after a failed write on the issue, the leftover label off.
import type { Logger } from "pino";
import type { RepoConfigSource } from "../config/config-source.js";
import { breakerSettingsOf, type RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord, SubjectKey } from "../domain/claim.js";
import { breakerOf, type FailedAttempt } from "../domain/failure-breaker.js";
import { describeActor, inert } from "../domain/inert-text.js";
import { asksForPerson } from "../domain/stall.js";
import type { SubjectAddress } from "../domain/subject-address.js";
import { noteNeedsHumanLabelRemoved } from "../lease/calls/needs-human-show.js";
import {
  type LeaseEventPublisher,
  needsHumanAnsweredEvent,
  publishLeaseEvents,
} from "../lease/lease-events.js";
import { writeFenced } from "../lease/transitions/commit-transition.js";
import type { AssignmentProvider, TransitionWrite } from "../providers/assignment-provider.js";
import type { Stores } from "../providers/stores.js";
import { operatorActor } from "./operator-take-back.js";

const byline = "An operator (claim-hold dashboard)";

export interface OperatorClearNeedsHumanDeps {
  stores: Pick<Stores, "claims" | "documents">;
  assignments: AssignmentProvider;
  /** The installation record of an addressed subject (`routeByForge`'s): null when none serves it. */
  installationOf: (subject: SubjectAddress) => Promise<number | null>;
  configs: RepoConfigSource;
  now: () => number;
  /** Where the holder's live stream hears the answer; absent: nowhere. */
  leaseEvents?: LeaseEventPublisher;
}

/** Why a subject needs a person, as the store shows it now. */
export interface NeedsPerson {
  /** The live agent holder's ask (its heartbeat's `needsHuman`), with its blocker. */
  ask: { holder: string; blocker: string | null } | null;
  /** Failed attempts when the failure breaker tripped (`queue.maxFailures`), else null. */
  trippedFailures: number | null;
  /** Every failed attempt the store keeps: a clear forgets them all, tripped or not. */
  failures: number;
  /**
   * The issue shows the needs-human label although nothing asks and the breaker has not tripped (a
   * clear whose write on the issue failed; the janitor's reconcile does not visit an ended claim's label).
   */
  leftoverLabel: boolean;
}

export type OperatorClearNeedsHumanResult =
  | {
      outcome: "done";
      generation: number;
      withdrewAsk: boolean;
      failuresCleared: number;
      /** Only the leftover label was taken off (the store had nothing to clear). */
      leftoverLabel: boolean;
      /** False when the forge refused the label removal and the comment on the issue (the store changed all the same). */
      shownOnIssue: boolean;
    }
  /** The plan (the confirm step): what a clear would do now. */
  | { outcome: "plan"; generation: number; needs: NeedsPerson }
  /** Not installed, not an issue, or a generation other than the page's: nothing changed. */
  | { outcome: "nothing"; reason: string }
  /** Neither an ask nor a tripped breaker: nothing changed. */
  | { outcome: "not_needed"; reason: string };

/**
 * Why `record` and the subject's failed `attempts` need a person (pure); null when they do not.
 * `labelShown`: the issue shows the needs-human label now.
 */
export function needsPersonOf(
  record: ClaimRecord | null,
  attempts: readonly FailedAttempt[],
  config: RepoConfig,
  now: number,
  labelShown = false,
): NeedsPerson | null {
  // The App's own ask on a stalled claim's behalf (`onStall: needs-human`) is cleared like the holder's.
  const ask =
    record && asksForPerson(record)
      ? {
          holder: record.actor.login,
          blocker:
            record.needsHuman === true ? (record.blocker ?? null) : "stalled (the App asked on its behalf)",
        }
      : null;
  const breaker = breakerOf(attempts, breakerSettingsOf(config), now);
  const trippedFailures = breaker.kind === "tripped" ? breaker.failures : null;
  const leftoverLabel = record !== null && labelShown && !ask && trippedFailures === null;
  return ask || trippedFailures !== null || leftoverLabel
    ? { ask, trippedFailures, failures: attempts.length, leftoverLabel }
    : null;
}

/**
 * `apply: false` answers the plan and changes nothing; `apply: true` clears. Either way a page's
 * `generation` other than the record's changes nothing (a resent form, a subject claimed again).
 */
export async function operatorClearNeedsHuman(
  deps: OperatorClearNeedsHumanDeps,
  request: SubjectAddress & { generation?: number; note?: string; apply: boolean },
  log: Logger,
): Promise<OperatorClearNeedsHumanResult> {
  const { repo, issue } = request;
  const subject = `${repo}#${issue}`;
  const installationId = await deps.installationOf(request);
  if (installationId === null) return { outcome: "nothing", reason: `The App is not installed on ${repo}.` };
  const ref = { installationId, repo, issue };
  const snapshot = await deps.assignments.status(ref);
  if (!snapshot) return { outcome: "nothing", reason: `${subject} is not an issue the App can read.` };
  const key: SubjectKey = { installationId, repoId: snapshot.repoId, issue: snapshot.issue };
  const [record, attempts, config] = await Promise.all([
    deps.stores.claims.get(key),
    deps.stores.claims.failures(key),
    deps.configs.load(installationId, snapshot.repo),
  ]);
  if (request.generation !== undefined && record && record.generation !== request.generation) {
    return { outcome: "nothing", reason: movedOnReason(subject, record.generation, request.generation) };
  }
  const label = config.labels.needsHuman;
  const labelShown = snapshot.labels.some((name) => name.toLowerCase() === label.toLowerCase());
  const needs = needsPersonOf(record, attempts, config, deps.now(), labelShown);
  if (!record || !needs) {
    return {
      outcome: "not_needed",
      reason: `${subject} does not need a person: no holder asks for one and its failure breaker has not tripped. Nothing was changed.`,
    };
  }
  if (!request.apply) return { outcome: "plan", generation: record.generation, needs };

  // The store re-checks the page's generation atomically: a claim made since this read is left alone.
  const shown = request.generation ?? record.generation;
  const stored = await deps.stores.claims.clearNeedsHuman({ key, generation: shown, now: deps.now() });
  // Nothing left in the store, but the label a failed write on the issue left behind: this clear redoes that write.
  const cleared =
    stored.kind === "skipped" && stored.reason === "nothing" && needs.leftoverLabel && stored.current
      ? { kind: "cleared" as const, record: stored.current, withdrewAsk: false, failuresCleared: 0 }
      : stored;
  if (cleared.kind === "skipped") {
    if (cleared.reason === "moved-on" && cleared.current) {
      return {
        outcome: "nothing",
        reason: movedOnReason(subject, cleared.current.generation, shown),
      };
    }
    return {
      outcome: "not_needed",
      reason: `${subject} does not need a person any more (the holder withdrew its ask meanwhile). Nothing was changed.`,
    };
  }
  const { withdrewAsk, failuresCleared } = cleared;
  const leftoverLabel = labelShown && !withdrewAsk && failuresCleared === 0;
  const now = deps.now();
  const write: TransitionWrite = {
    subjectNodeId: snapshot.nodeId,
    ...(labelShown ? { removeLabels: [label] } : {}),
    addComments: [
      clearedComment(cleared.record, { withdrewAsk, failuresCleared, leftoverLabel }, request.note),
    ],
  };
  const scoped = log.child({ operatorAction: "clear-needs-human", subject });
  let shownOnIssue = true;
  try {
    await writeFenced(
      { assignments: deps.assignments, log: scoped },
      ref,
      cleared.record,
      write,
      config.labels,
    );
    if (labelShown) await noteNeedsHumanLabelRemoved(deps.stores.documents, cleared.record, config, now);
  } catch (error) {
    // The store changed; the same action again offers to take the leftover label off (see needsPersonOf).
    scoped.warn({ err: error }, "needs-human cleared in the store, not shown on the issue");
    shownOnIssue = false;
  }
  if (withdrewAsk && cleared.record.tokenDigest) {
    await publishLeaseEvents(deps.leaseEvents, scoped, [
      needsHumanAnsweredEvent(cleared.record, { by: operatorActor.login, how: "cleared", at: now }),
    ]);
  }
  return {
    outcome: "done",
    generation: cleared.record.generation,
    withdrewAsk,
    failuresCleared,
    leftoverLabel,
    shownOnIssue,
  };
}

function movedOnReason(subject: string, current: number, shown: number): string {
  return `${subject} is at generation ${current} now, not the ${shown} the page showed; reload it.`;
}

/** The App's comment: who cleared what, and that a holder still stuck asks again. */
function clearedComment(
  record: ClaimRecord,
  cleared: { withdrewAsk: boolean; failuresCleared: number; leftoverLabel: boolean },
  note: string | undefined,
): string {
  const { withdrewAsk, failuresCleared } = cleared;
  const lines = [`✅ ${byline} cleared needs-human (generation ${record.generation}).`];
  if (withdrewAsk) {
    lines.push(
      `${describeActor(record.actor)}'s ask for a person is withdrawn; it asks again if it is still stuck.`,
    );
  }
  if (failuresCleared > 0) {
    lines.push(
      `The failure breaker is reset (${failuresCleared} failed attempt${failuresCleared === 1 ? "" : "s"} forgotten): agents may claim the issue again.`,
    );
  }
  if (cleared.leftoverLabel) {
    lines.push(
      "The leftover needs-human label is taken off: nothing asks for a person and the failure breaker has not tripped.",
    );
  }
  if (note?.trim()) lines.push(`Note: ${inert(note.trim(), { max: 500 })}`);
  return lines.join("\n");
}
