// The janitor's stale mark: store, GitHub's stale label, the change told — one path.
import type { RepoConfig } from "../../config/repo-config.js";
import type { ClaimRecord } from "../../domain/claim.js";
import type { MarkStaleInput, MarkStaleOutcome } from "../../providers/app-transition-types.js";
import type { SubjectRef, TransitionWrite } from "../../providers/assignment-provider.js";
import type { ClaimStore } from "../../providers/liveness-store.js";
import type { TransitionDeps, WriteResult } from "./end-claim.js";

export type MarkStaleResult =
  | ({ kind: "marked"; record: ClaimRecord } & WriteResult)
  | Extract<MarkStaleOutcome, { kind: "skipped" }>;

/**
 * Marks a silent holder's claim stale: the store's guarded mark decides, then the label is written
 * and the change told. A failed write is logged and answered, for reconcile to repair.
 */
export async function markStale(
  deps: Omit<TransitionDeps, "stores"> & { stores: { claims: Pick<ClaimStore, "markStale"> } },
  request: {
    mark: MarkStaleInput;
    ref: SubjectRef;
    config: RepoConfig;
    /** The label write for the marked record. */
    write: (marked: ClaimRecord) => TransitionWrite;
  },
): Promise<MarkStaleResult> {
  const outcome = await deps.stores.claims.markStale(request.mark);
  if (outcome.kind !== "marked") return outcome;
  const { record } = outcome;
  let result: WriteResult = { written: true };
  try {
    await deps.assignments.apply(request.ref, request.write(record));
  } catch (error) {
    deps.log.warn(
      { subject: `${record.repo}#${record.issue}`, err: error },
      "stale mark not written on GitHub; reconcile will",
    );
    result = { written: false, error };
  }
  await deps.events.transitioned(
    { cause: "stale", at: request.mark.now, record, previous: null },
    request.config,
  );
  return { kind: "marked", record, ...result };
}
