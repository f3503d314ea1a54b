// The memory store's transitions made by the App itself (janitor, webhooks, /reclaim), over the subject slots.
import type { ClaimRecord, SubjectKey } from "../../domain/claim.js";
import { newHumanRecord } from "../claim-records.js";
import type {
  EndClaimInput,
  EndClaimOutcome,
  HumanClaimInput,
  MarkStaleInput,
  MarkStaleOutcome,
} from "../liveness-store.js";
import { clone, endGuard, forgottenRecord, markStaleGuard } from "./claim-rules.js";
import type { SubjectSlots } from "./subject-slots.js";

/** Ends an active claim without its token (revoke, reap, completion); see `ClaimStore.endClaim`. */
export function endClaim(slots: SubjectSlots, input: EndClaimInput): EndClaimOutcome {
  const slot = slots.slot(input.key);
  const current = slot.record;
  const reason = endGuard(current, input);
  if (reason) return { kind: "skipped", reason, current: current ? clone(current) : null };
  const record = current!;
  const previous = clone(record);
  record.state = input.to;
  record.endedAt = input.now;
  if (input.by) record.endedBy = clone(input.by);
  record.sync = "pending";
  delete record.takeover;
  if (input.bump) {
    // Above the high-water mark, so a generation burnt by a rolled-back claim is never reused.
    const generation = Math.max(slot.highWater, previous.generation) + 1;
    slot.highWater = generation;
    record.generation = generation;
    record.supersedes = previous.generation;
  }
  slots.setDeadline(record);
  slot.activityAt = input.now;
  slots.recordTransition(slot, {
    at: input.now,
    generation: previous.generation,
    kind: input.to,
    ...(input.by ? { actor: clone(input.by) } : {}),
  });
  return { kind: "ended", previous, record: clone(record) };
}

export function markStale(slots: SubjectSlots, input: MarkStaleInput): MarkStaleOutcome {
  const slot = slots.slot(input.key);
  const current = slot.record;
  const reason = markStaleGuard(current, input);
  if (reason) return { kind: "skipped", reason, current: current ? clone(current) : null };
  const record = current!;
  record.staleMarkedAt = input.now;
  slots.setDeadline(record);
  slot.activityAt = input.now;
  return { kind: "marked", record: clone(record) };
}

export function humanClaim(
  slots: SubjectSlots,
  input: HumanClaimInput,
): { record: ClaimRecord; previous: ClaimRecord | null } {
  const slot = slots.slot(input.key);
  const current = slot.record;
  const { now } = input;
  const generation = Math.max(slot.highWater, current?.generation ?? 0, input.minGeneration) + 1;
  slot.highWater = generation;
  const previous = current ? clone(current) : null;
  if (current?.state === "active") {
    slots.recordTransition(slot, {
      at: now,
      generation: current.generation,
      kind: "superseded",
      actor: input.actor,
    });
  }
  const record = clone(newHumanRecord(input, generation, current));
  slot.record = record;
  slots.setDeadline(record);
  slot.activityAt = now;
  slots.recordTransition(
    slot,
    input.release
      ? { at: now, generation, kind: "released", actor: input.actor, note: "abandoned" }
      : { at: now, generation, kind: "claimed", actor: input.actor },
  );
  return { record: clone(record), previous };
}

export function recordPush(slots: SubjectSlots, key: SubjectKey, generation: number, at: number): void {
  const record = slots.slot(key).record;
  if (!record || record.generation !== generation || record.state !== "active") return;
  record.lastPushAt = Math.max(record.lastPushAt ?? at, at);
}

export function forget(slots: SubjectSlots, key: SubjectKey, now: number): void {
  const slot = slots.slot(key);
  slots.dropDeadline(key);
  delete slot.activityAt;
  const record = slot.record;
  if (!record || record.state === "revoked") return;
  forgottenRecord(record, now);
  slots.recordTransition(slot, {
    at: now,
    generation: record.generation,
    kind: "revoked",
    note: "forgotten",
  });
}
