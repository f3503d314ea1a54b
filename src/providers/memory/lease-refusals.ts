// What a lease call (heartbeat, verify, release) answers instead of success, decided from the subject's slot.
import { aliveAt } from "../../domain/liveness.js";
import type { LeaseInput, LeaseRefusal } from "../liveness-store.js";
import { clone, digestsEqual, goneReason } from "./claim-rules.js";
import type { SubjectSlot } from "./subject-slots.js";

/** The token's refusal: unknown, rotated out, or of an older generation (null when it holds the current one); refuse in tokens.lua. */
export function leaseRefusal(slot: SubjectSlot, input: LeaseInput): LeaseRefusal | null {
  const current = slot.record;
  if (!current || input.generation > current.generation) return { kind: "missing" };
  const known = slot.digests.get(input.generation);
  if (!known || !digestsEqual(known, input.tokenDigest)) {
    const rotated = slot.rotated
      .get(input.generation)
      ?.find((r) => digestsEqual(r.digest, input.tokenDigest));
    if (rotated) return { kind: "superseded", current: clone(current), rotatedAt: rotated.at };
    return { kind: "invalid_token" };
  }
  if (input.generation < current.generation) {
    if (current.state === "active" || current.state === "human")
      return { kind: "superseded", current: clone(current) };
    return { kind: "gone", reason: goneReason(current), current: clone(current) };
  }
  return null;
}

/** As `leaseRefusal`, and also `gone` when the current record is no longer active or has expired (heartbeat-7.lua, verify-2.lua). */
export function liveLeaseRefusal(
  slot: SubjectSlot,
  input: LeaseInput & { now: number },
): LeaseRefusal | null {
  const refusal = leaseRefusal(slot, input);
  if (refusal) return refusal;
  const record = slot.record!;
  if (record.state !== "active") return { kind: "gone", reason: goneReason(record), current: clone(record) };
  if (input.now - aliveAt(record) >= record.durations.reclaimAfterMs) {
    return { kind: "gone", reason: "expired", current: clone(record) };
  }
  return null;
}
