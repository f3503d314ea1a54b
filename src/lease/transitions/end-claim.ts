// Ending a claim without its holder (revoke, reap, completion, over budget): store, GitHub, commit, events — one path.
import type { Logger } from "pino";
import type { RepoConfig } from "../../config/repo-config.js";
import { type ClaimRecord, type SubjectKey, subjectName } from "../../domain/claim.js";
import type { ChangeCause } from "../../domain/claim-change.js";
import type { FailedAttempt } from "../../domain/failure-breaker.js";
import type { EndClaimInput, EndClaimOutcome } from "../../providers/app-transition-types.js";
import type { AssignmentProvider, SubjectRef, TransitionWrite } from "../../providers/assignment-provider.js";
import type { ClaimStore } from "../../providers/liveness-store.js";
import type { ClaimEvents } from "./claim-events.js";
import { commitWritten } from "./commit-transition.js";
import { endedClaimWrite } from "./ended-write.js";
import { markTripLanded, withBreakerTrip } from "./failure-summary.js";

export interface TransitionDeps {
  stores: { claims: Pick<ClaimStore, "commitClaim" | "markSynced" | "markTripWritten"> };
  assignments: Pick<AssignmentProvider, "apply">;
  events: ClaimEvents;
  log: Pick<Logger, "warn">;
}

/** What a transition's GitHub write came to: the store's result stands either way. */
export type WriteResult = { written: true } | { written: false; error: unknown };

export interface EndedClaim {
  previous: ClaimRecord;
  record: ClaimRecord;
}

/** The GitHub side of an ended claim: by default the labels off, the comment final, the note added. */
export interface EndedWriteOptions {
  note?: string;
  /** Completion by closing the issue keeps the assignee as the record. */
  keepAssignee?: boolean;
  /** A write of its own (the over-budget release adds its label). */
  write?: (ended: EndedClaim) => TransitionWrite;
  /** The subject's failed attempts after this end, when it recorded one: the breaker may trip in this write. */
  failures?: FailedAttempt[];
}

export interface EndClaimRequest extends EndedWriteOptions {
  /** The store's guarded end: generation, silence and epoch re-checked atomically. */
  end: EndClaimInput;
  ref: SubjectRef;
  /** Or how to load it, once the store has ended the claim (a skipped end reads nothing). */
  config: RepoConfig | (() => Promise<RepoConfig>);
}

export type EndClaimResult =
  | ({ kind: "ended" } & EndedClaim & WriteResult)
  | Extract<EndClaimOutcome, { kind: "skipped" }>;

/**
 * Ends a claim: the store's transition decides (a skipped one changes nothing anywhere), then
 * GitHub is written, the write committed or the record marked synced, and the change told once.
 * A GitHub failure is logged and left `sync: pending` for reconcile (docs/architecture.md#claim-events).
 */
export async function endClaim(
  deps: TransitionDeps & { stores: { claims: Pick<ClaimStore, "endClaim" | "commitClaim" | "markSynced"> } },
  request: EndClaimRequest,
): Promise<EndClaimResult> {
  const outcome = await deps.stores.claims.endClaim(request.end);
  if (outcome.kind !== "ended") return outcome;
  const ended = { previous: outcome.previous, record: outcome.record };
  const config = typeof request.config === "function" ? await request.config() : request.config;
  const result = await finishEnded(deps, {
    ...request,
    ...(outcome.failures ? { failures: outcome.failures } : {}),
    config,
    ended,
    cause: request.end.to,
    key: request.end.key,
    at: request.end.now,
  });
  return { kind: "ended", ...ended, ...result };
}

/**
 * After the store ended a claim (by `endClaim`, or a release the App made for the holder): the
 * write, its commit, and the change told — whether or not GitHub took the write.
 */
export async function finishEnded(
  deps: TransitionDeps,
  request: EndedWriteOptions & {
    key: SubjectKey;
    ref: SubjectRef;
    config: RepoConfig;
    ended: EndedClaim;
    cause: ChangeCause;
    at: number;
    spend?: { spentUsd: number; limitUsd: number };
  },
): Promise<WriteResult> {
  const { ended, config } = request;
  const result = await writeEnded(deps, request.key, request.ref, ended, config, request);
  await deps.events.transitioned(
    {
      cause: request.cause,
      at: request.at,
      record: ended.record,
      previous: ended.previous,
      ...(request.spend ? { spend: request.spend } : {}),
    },
    config,
  );
  return result;
}

/**
 * The GitHub write of an ended claim, then its claim comment committed or the record marked synced;
 * a failure is logged and answered, never thrown (reconcile writes it again from the record).
 */
export async function writeEnded(
  deps: Omit<TransitionDeps, "events">,
  key: SubjectKey,
  ref: SubjectRef,
  ended: EndedClaim,
  config: RepoConfig,
  options: EndedWriteOptions = {},
): Promise<WriteResult> {
  const { write, trippedThrough } = withBreakerTrip(
    options.write?.(ended) ??
      endedClaimWrite({
        previous: ended.previous,
        ended: ended.record,
        config,
        ...(options.note !== undefined ? { note: options.note } : {}),
        ...(options.keepAssignee ? { keepAssignee: true } : {}),
      }),
    {
      subject: subjectName(ended.record.repo, ended.record.issue),
      failures: options.failures,
      config,
      ended: { generation: ended.previous.generation, state: ended.record.state },
    },
  );
  const subject = subjectName(ended.record.repo, ended.record.issue);
  try {
    const applied = await deps.assignments.apply(ref, write);
    await commitWritten(deps.stores.claims, key, ended.record.generation, applied.claimComment, {
      orMarkSynced: true,
    });
  } catch (error) {
    deps.log.warn(
      { subject, err: error },
      `${ended.record.state} claim not written on GitHub; reconcile will`,
    );
    return { written: false, error };
  }
  // Only a landed trip is marked: otherwise the janitor finds it unwritten and writes it.
  if (trippedThrough !== undefined) await markTripLanded(deps, key, subject, trippedThrough);
  return { written: true };
}
