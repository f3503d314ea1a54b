// The failure breaker's trip on GitHub (docs/reference/github-surfaces.md#failure-summary): the needs-human label and one comment summarising the failed attempts, added to the write that ends the tripping generation.

import type { Logger } from "pino";
import type { RepoConfig } from "../../config/repo-config.js";
import type { SubjectKey } from "../../domain/claim.js";
import { branchCode } from "../../domain/claim-marker.js";
import {
  type FailedAttempt,
  type FailureReason,
  failureSummaryHeadline,
  tripsNow,
} from "../../domain/failure-breaker.js";
import { describeActor, inert } from "../../domain/inert-text.js";
import type { TransitionWrite } from "../../providers/assignment-provider.js";
import type { ClaimStore } from "../../providers/liveness-store.js";
import { spanOf } from "./ended-write.js";

const reasonText: Record<FailureReason, string> = {
  reaped: "reaped (heartbeats stopped)",
  revoked: "revoked (holder lost write access)",
  stalled: "stalled and taken over",
  failed: "released `failed`",
};

/** The summary comment: one row per failed attempt, oldest first, then how a person resets it. */
export function failureSummary(
  subject: string,
  attempts: readonly FailedAttempt[],
  config: RepoConfig,
): string {
  const rows = attempts.map((a, i) => {
    const links = [
      ...(a.branch ? [branchCode(a.branch)] : []),
      ...(a.pullRequest !== undefined ? [`#${a.pullRequest}`] : []),
    ];
    // inert escapes `|` too, so a note never breaks out of its table cell.
    const note = a.note ? inert(a.note, { max: 300 }) : "—";
    return `| ${i + 1} | ${a.generation} | ${describeActor(a.actor)} | ${spanOf(a.endedAt - a.claimedAt)} | ${reasonText[a.reason]} | ${links.join(" ") || "—"} | ${note} |`;
  });
  const label = `\`${config.labels.needsHuman}\``;
  return [
    `${failureSummaryHeadline}${subject} failed ${attempts.length} times in a row, so it leaves the agent queue and waits for a person (${label}).`,
    "",
    "| # | Generation | Holder | Held for | Ended | Links | Note |",
    "|---|---|---|---|---|---|---|",
    ...rows,
    "",
    `A person's \`/reclaim release\` or removing ${label} resets the count; a claim with \`"override": true\` takes it anyway.`,
  ].join("\n");
}

/**
 * `write` (the ending write of generation `ended.generation`) with the breaker's trip added when
 * this end recorded the `queue.maxFailures`-th failure: the label and the summary go out in the same
 * write. `trippedThrough` is the newest attempt's generation it summarises, for `markTripWritten`
 * once the write landed (a failed write leaves the trip to the janitor). A claim taken with
 * `override` over a tripped breaker took the label off: whatever way it ends (a handoff, another
 * failure), the breaker is still tripped, so its ending write puts the label back — without a
 * second summary. A completion (the issue closed) gets no label.
 */
export function withBreakerTrip(
  write: TransitionWrite,
  input: {
    subject: string;
    failures: readonly FailedAttempt[] | undefined;
    config: RepoConfig;
    ended: { generation: number; state: string };
  },
): { write: TransitionWrite; trippedThrough?: number } {
  const { failures, config, ended } = input;
  const max = config.queue.maxFailures;
  if (!failures || failures.length < max || ended.state === "completed") return { write };
  const recordedNow = failures.at(-1)!.generation === ended.generation;
  if (recordedNow && tripsNow(failures, max)) {
    return {
      write: withTrip(write, input.subject, failures, config),
      trippedThrough: failures.at(-1)!.generation,
    };
  }
  return { write: withTripLabel(write, config) };
}

/** `write` with the needs-human label added (and never removed by it). */
function withTripLabel(write: TransitionWrite, config: RepoConfig): TransitionWrite {
  const label = config.labels.needsHuman;
  return {
    ...write,
    addLabels: [...(write.addLabels ?? []), label],
    removeLabels: (write.removeLabels ?? []).filter((l) => l !== label),
  };
}

/** `write` with the trip added: the needs-human label (never removed by it) and the summary comment. */
export function withTrip(
  write: TransitionWrite,
  subject: string,
  failures: readonly FailedAttempt[],
  config: RepoConfig,
): TransitionWrite {
  const labelled = withTripLabel(write, config);
  return {
    ...labelled,
    addComments: [...(write.addComments ?? []), failureSummary(subject, failures, config)],
  };
}

/**
 * Marks a trip that landed on GitHub. A failed mark changes nothing already done (the write stands,
 * the caller's transition too): it is logged, and the janitor finds the trip shown and marks it.
 */
export async function markTripLanded(
  deps: { stores: { claims: Pick<ClaimStore, "markTripWritten"> }; log: Pick<Logger, "warn"> },
  key: SubjectKey,
  subject: string,
  throughGeneration: number,
): Promise<void> {
  try {
    await deps.stores.claims.markTripWritten(key, throughGeneration);
  } catch (error) {
    deps.log.warn(
      { subject, err: error },
      "failure breaker trip written on GitHub but not marked; the next reconcile marks it",
    );
  }
}
