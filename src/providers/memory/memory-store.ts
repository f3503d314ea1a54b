// The embedded single-process LivenessStore: the reference semantics the Redis scripts reproduce.
import { timingSafeEqual } from "node:crypto";
import type { Actor, ClaimRecord, SubjectKey, Transition } from "../../domain/claim.js";
import { aliveAt } from "../../lease/liveness.js";
import {
  checkTtl,
  encodeDocument,
  historyLimit,
  newClaimRecord,
  newHumanRecord,
  rotatedTokensKept,
  takeoverIntentLifetimeFactor,
} from "../claim-records.js";
import type {
  ClaimInput,
  ClaimOutcome,
  CommitReclaimInput,
  EndClaimInput,
  EndClaimOutcome,
  GoneReason,
  HeartbeatInput,
  HeartbeatOutcome,
  HumanClaimInput,
  LeaseInput,
  LeaseRefusal,
  LivenessStore,
  MarkStaleInput,
  MarkStaleOutcome,
  ReleaseInput,
  ReleaseOutcomeResult,
  VerifyOutcome,
} from "../liveness-store.js";

interface SubjectSlot {
  record: ClaimRecord | null;
  highWater: number;
  digests: Map<number, string>;
  /** Per generation, the digests re-claims rotated out (newest last) and when. */
  rotated: Map<number, { digest: string; at: number }[]>;
  history: Transition[];
  /** Time of the record's last transition or heartbeat: the repository listing's order. */
  activityAt?: number;
}

export interface MemoryLivenessStoreOptions {
  /** Clock for the keys that expire on their own (deliveries, locks, documents); default Date.now. */
  now?: () => number;
}

export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function sameSession(a: Actor, b: Actor): boolean {
  return (
    a.kind === "agent" &&
    b.kind === "agent" &&
    !!a.sessionId &&
    a.sessionId === b.sessionId &&
    a.login === b.login
  );
}

/**
 * Invariant 14: the claimant proves it is the holding session with the session key whose digest the
 * record keeps, or with the lease's current token. A record restored from its claim comment has no
 * session-key digest (the marker never carries it): then only the token proves the session.
 */
function provesSession(current: ClaimRecord, currentToken: string | undefined, input: ClaimInput): boolean {
  const byKey =
    input.sessionKeyDigest !== undefined &&
    current.sessionKeyDigest !== undefined &&
    digestsEqual(current.sessionKeyDigest, input.sessionKeyDigest);
  const byToken =
    input.leaseTokenDigest !== undefined &&
    currentToken !== undefined &&
    digestsEqual(currentToken, input.leaseTokenDigest);
  return byKey || byToken;
}

export class MemoryLivenessStore implements LivenessStore {
  readonly #slots = new Map<string, SubjectSlot>();
  readonly #epochs = new Map<number, number>();
  readonly #deadlines = new Map<number, Map<string, number>>();
  readonly #installations = new Set<number>();
  /** Keys with a time to live, named as on Redis (`delivery:…`, `lock:…`, `doc:…`). */
  readonly #expiring = new Map<string, { value: string; expiresAt: number }>();
  readonly #now: () => number;

  constructor(options: MemoryLivenessStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  #slot(key: SubjectKey): SubjectSlot {
    const id = `${key.installationId}:${key.repoId}:${key.issue}`;
    let slot = this.#slots.get(id);
    if (!slot) {
      slot = { record: null, highWater: 0, digests: new Map(), rotated: new Map(), history: [] };
      this.#slots.set(id, slot);
    }
    return slot;
  }

  #record(slot: SubjectSlot, transition: Transition): void {
    slot.history.unshift(transition);
    slot.history.length = Math.min(slot.history.length, historyLimit);
  }

  #setDeadline(record: ClaimRecord): void {
    let set = this.#deadlines.get(record.installationId);
    if (!set) {
      set = new Map();
      this.#deadlines.set(record.installationId, set);
    }
    const member = `${record.repoId}:${record.issue}`;
    if (record.state === "active") {
      const after =
        record.staleMarkedAt !== undefined ? record.durations.reclaimAfterMs : record.durations.ttlMs;
      set.set(member, aliveAt(record) + after);
    } else {
      set.delete(member);
    }
  }

  #liveClaimsOf(input: ClaimInput, skip: SubjectKey): { session: number; login: number } {
    let session = 0;
    let login = 0;
    for (const slot of this.#slots.values()) {
      const r = slot.record;
      if (!r || r.installationId !== input.key.installationId) continue;
      if (r.repoId === skip.repoId && r.issue === skip.issue) continue;
      const live = r.state === "active" && input.now - aliveAt(r) < r.durations.ttlMs;
      if (!live) continue;
      if (sameSession(r.actor, input.actor)) session++;
      if (r.actor.login === input.actor.login) login++;
    }
    return { session, login };
  }

  async claim(input: ClaimInput): Promise<ClaimOutcome> {
    const slot = this.#slot(input.key);
    const current = slot.record;
    const { now } = input;
    if (current?.state === "human") return { kind: "human_held", current: clone(current) };
    if (current?.state === "active") {
      const silent = now - aliveAt(current);
      const expired = silent >= current.durations.reclaimAfterMs;
      // An unproven claimant naming the holder's (public) session id is just another session.
      const same =
        sameSession(current.actor, input.actor) &&
        (expired || provesSession(current, slot.digests.get(current.generation), input));
      if (same && !expired) {
        // The old token stays the lease's until commitReclaim: a failed GitHub write keeps it valid.
        current.pendingTokenDigest = input.tokenDigest;
        if (input.sessionKeyDigest !== undefined) current.sessionKeyDigest = input.sessionKeyDigest;
        current.lastHeartbeatAt = now;
        delete current.takeover;
        delete current.staleMarkedAt;
        current.sync = "pending";
        this.#setDeadline(current);
        slot.activityAt = now;
        this.#record(slot, {
          at: now,
          generation: current.generation,
          kind: "reclaimed",
          actor: input.actor,
        });
        return { kind: "reclaimed", record: clone(current) };
      }
      if (!same && !expired) {
        const intent = current.takeover;
        const intentAlive = intent && now < intent.at + takeoverIntentLifetimeFactor * intent.graceMs;
        if (silent < current.durations.ttlMs || !input.takeover) {
          return {
            kind: "held",
            current: clone(current),
            ...(intentAlive ? { takeoverPendingBy: intent.claimant } : {}),
          };
        }
        // The intent is its claimant session's: naming that (public) session id is not enough when
        // the intent was made with a session key.
        const keyDiffers =
          intent?.keyDigest !== undefined &&
          (input.sessionKeyDigest === undefined || !digestsEqual(intent.keyDigest, input.sessionKeyDigest));
        if (intent && intentAlive && (!sameSession(intent.claimant, input.actor) || keyDiffers)) {
          return { kind: "held", current: clone(current), takeoverPendingBy: intent.claimant };
        }
        if (!intent || !intentAlive || now < intent.at + intent.graceMs) {
          if (!intent || !intentAlive) {
            current.takeover = {
              claimant: clone(input.actor),
              at: now,
              graceMs: current.durations.heartbeatMs,
              ...(input.sessionKeyDigest !== undefined ? { keyDigest: input.sessionKeyDigest } : {}),
            };
            slot.activityAt = now;
            this.#record(slot, {
              at: now,
              generation: current.generation,
              kind: "takeover-requested",
              actor: input.actor,
            });
          }
          const pending = current.takeover!;
          return {
            kind: "takeover_pending",
            current: clone(current),
            retryAfterMs: pending.at + pending.graceMs - now,
          };
        }
      } else if (expired && !input.takeover && !same) {
        return { kind: "held", current: clone(current) };
      }
    }
    const live = this.#liveClaimsOf(input, input.key);
    if (input.actor.kind === "agent" && live.session >= input.caps.perSession) {
      return { kind: "cap_reached", limit: "session", max: input.caps.perSession };
    }
    if (input.actor.kind === "agent" && live.login >= input.caps.perLogin) {
      return { kind: "cap_reached", limit: "login", max: input.caps.perLogin };
    }
    const generation = Math.max(slot.highWater, current?.generation ?? 0, input.minGeneration) + 1;
    slot.highWater = generation;
    const previous = current ? clone(current) : null;
    if (current?.state === "active") {
      this.#record(slot, { at: now, generation: current.generation, kind: "superseded", actor: input.actor });
    }
    // Cloned so the caller's input objects (actor, durations, scope) never alias the stored record.
    const record = clone(newClaimRecord(input, generation, current));
    slot.record = record;
    slot.digests.set(generation, input.tokenDigest);
    this.#setDeadline(record);
    slot.activityAt = now;
    this.#record(slot, { at: now, generation, kind: "claimed", actor: input.actor });
    return { kind: "created", record: clone(record), previous };
  }

  async commitReclaim(input: CommitReclaimInput): Promise<ClaimRecord | null> {
    const slot = this.#slot(input.key);
    const record = slot.record;
    if (
      !record ||
      record.generation !== input.generation ||
      record.state !== "active" ||
      record.pendingTokenDigest === undefined ||
      !digestsEqual(record.pendingTokenDigest, input.tokenDigest)
    ) {
      return null;
    }
    const old = slot.digests.get(input.generation);
    if (old !== undefined) {
      const rotated = [...(slot.rotated.get(input.generation) ?? []), { digest: old, at: input.now }];
      slot.rotated.set(input.generation, rotated.slice(-rotatedTokensKept));
    }
    slot.digests.set(input.generation, input.tokenDigest);
    record.tokenDigest = input.tokenDigest;
    delete record.pendingTokenDigest;
    if (input.comment) {
      record.commentNodeId = input.comment.commentNodeId;
      if (input.comment.commentId !== undefined) record.commentId = input.comment.commentId;
    }
    record.sync = "done";
    return clone(record);
  }

  async commitClaim(
    key: SubjectKey,
    generation: number,
    comment: { commentNodeId: string; commentId?: number },
  ): Promise<void> {
    const record = this.#slot(key).record;
    if (!record || record.generation !== generation) return;
    record.commentNodeId = comment.commentNodeId;
    if (comment.commentId !== undefined) record.commentId = comment.commentId;
    record.sync = "done";
  }

  async rollbackClaim(
    key: SubjectKey,
    generation: number,
    previous: ClaimRecord | null,
    now: number,
  ): Promise<void> {
    const slot = this.#slot(key);
    if (!slot.record || slot.record.generation !== generation || slot.record.sync !== "pending") return;
    slot.record = previous ? clone(previous) : null;
    if (previous) {
      this.#setDeadline(previous);
      slot.activityAt = now;
    } else {
      this.#deadlines.get(key.installationId)?.delete(`${key.repoId}:${key.issue}`);
      delete slot.activityAt;
    }
    this.#record(slot, { at: now, generation, kind: "rolled-back" });
  }

  #refuse(slot: SubjectSlot, input: LeaseInput): LeaseRefusal | null {
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

  async heartbeat(input: HeartbeatInput): Promise<HeartbeatOutcome> {
    const slot = this.#slot(input.key);
    const refusal = this.#refuse(slot, input);
    if (refusal) return refusal;
    const record = slot.record!;
    if (record.state !== "active")
      return { kind: "gone", reason: goneReason(record), current: clone(record) };
    if (input.now - aliveAt(record) >= record.durations.reclaimAfterMs) {
      return { kind: "gone", reason: "expired", current: clone(record) };
    }
    let editComment = false;
    if (record.staleMarkedAt !== undefined) {
      delete record.staleMarkedAt;
      editComment = true;
    }
    if (input.phase !== undefined && input.phase !== record.phase) {
      record.phase = input.phase;
      // The first phase change always edits, whatever the clock's origin.
      if (
        record.phaseCommentAt === undefined ||
        input.now - record.phaseCommentAt >= input.phaseEditEveryMs
      ) {
        record.phaseCommentAt = input.now;
        editComment = true;
      }
    }
    if (input.blocker !== undefined) record.blocker = input.blocker;
    if (input.waitUntil !== undefined) record.waitUntil = input.waitUntil;
    if (input.pullRequest !== undefined) record.pullRequest = input.pullRequest;
    if (input.durations) record.durations = clone(input.durations);
    record.lastHeartbeatAt = input.now;
    delete record.takeover;
    this.#setDeadline(record);
    slot.activityAt = input.now;
    return { kind: "ok", record: clone(record), editComment };
  }

  async verify(input: LeaseInput): Promise<VerifyOutcome> {
    const slot = this.#slot(input.key);
    const refusal = this.#refuse(slot, input);
    if (refusal) return refusal;
    const record = slot.record!;
    if (record.state !== "active")
      return { kind: "gone", reason: goneReason(record), current: clone(record) };
    if (input.now - aliveAt(record) >= record.durations.reclaimAfterMs) {
      return { kind: "gone", reason: "expired", current: clone(record) };
    }
    return { kind: "ok", record: clone(record) };
  }

  async release(input: ReleaseInput): Promise<ReleaseOutcomeResult> {
    const slot = this.#slot(input.key);
    const refusal = this.#refuse(slot, input);
    if (refusal) return refusal;
    const record = slot.record!;
    if (record.state === "released" || record.state === "completed") {
      return { kind: "released", record: clone(record), repeated: true };
    }
    if (record.state !== "active")
      return { kind: "gone", reason: goneReason(record), current: clone(record) };
    record.state = input.outcome === "completed" ? "completed" : "released";
    record.outcome = input.outcome;
    record.endedAt = input.now;
    record.endedBy = record.actor;
    record.sync = "pending";
    delete record.takeover;
    this.#setDeadline(record);
    slot.activityAt = input.now;
    this.#record(slot, {
      at: input.now,
      generation: record.generation,
      kind: record.state === "completed" ? "completed" : "released",
      actor: record.actor,
      note: input.outcome,
    });
    return { kind: "released", record: clone(record), repeated: false };
  }

  async markSynced(key: SubjectKey, generation: number): Promise<void> {
    const record = this.#slot(key).record;
    if (record && record.generation === generation) record.sync = "done";
  }

  async get(key: SubjectKey): Promise<ClaimRecord | null> {
    const record = this.#slot(key).record;
    return record ? clone(record) : null;
  }

  async restore(record: ClaimRecord, now: number): Promise<"restored" | "exists"> {
    const slot = this.#slot(record);
    slot.highWater = Math.max(slot.highWater, record.generation);
    // The restored generation's token stays recognisable even when a newer record is kept.
    if (record.tokenDigest && !slot.digests.has(record.generation)) {
      slot.digests.set(record.generation, record.tokenDigest);
    }
    if (slot.record && slot.record.generation >= record.generation) return "exists";
    slot.record = clone(record);
    if (record.tokenDigest) slot.digests.set(record.generation, record.tokenDigest);
    this.#setDeadline(record);
    slot.activityAt = now;
    this.#record(slot, { at: now, generation: record.generation, kind: "restored", actor: record.actor });
    return "restored";
  }

  async history(key: SubjectKey): Promise<Transition[]> {
    return this.#slot(key).history.map(clone);
  }

  async due(installationId: number, now: number, limit: number): Promise<SubjectKey[]> {
    const set = this.#deadlines.get(installationId);
    if (!set || limit <= 0) return [];
    // Ties are ordered by member, as a Redis sorted set orders them.
    return [...set]
      .filter(([, deadline]) => deadline <= now)
      .sort(([a, x], [b, y]) => x - y || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, limit)
      .map(([member]) => {
        const [repoId, issue] = member.split(":").map(Number) as [number, number];
        return { installationId, repoId, issue };
      });
  }

  async epoch(installationId: number, now: number): Promise<number> {
    const known = this.#epochs.get(installationId);
    if (known !== undefined) return known;
    this.#epochs.set(installationId, now);
    return now;
  }

  async endClaim(input: EndClaimInput): Promise<EndClaimOutcome> {
    const slot = this.#slot(input.key);
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
    this.#setDeadline(record);
    slot.activityAt = input.now;
    this.#record(slot, {
      at: input.now,
      generation: previous.generation,
      kind: input.to,
      ...(input.by ? { actor: clone(input.by) } : {}),
    });
    return { kind: "ended", previous, record: clone(record) };
  }

  async markStale(input: MarkStaleInput): Promise<MarkStaleOutcome> {
    const slot = this.#slot(input.key);
    const current = slot.record;
    const reason = markStaleGuard(current, input);
    if (reason) return { kind: "skipped", reason, current: current ? clone(current) : null };
    const record = current!;
    record.staleMarkedAt = input.now;
    this.#setDeadline(record);
    slot.activityAt = input.now;
    return { kind: "marked", record: clone(record) };
  }

  async humanClaim(input: HumanClaimInput): Promise<{ record: ClaimRecord; previous: ClaimRecord | null }> {
    const slot = this.#slot(input.key);
    const current = slot.record;
    const { now } = input;
    const generation = Math.max(slot.highWater, current?.generation ?? 0, input.minGeneration) + 1;
    slot.highWater = generation;
    const previous = current ? clone(current) : null;
    if (current?.state === "active") {
      this.#record(slot, { at: now, generation: current.generation, kind: "superseded", actor: input.actor });
    }
    const record = clone(newHumanRecord(input, generation, current));
    slot.record = record;
    this.#setDeadline(record);
    slot.activityAt = now;
    this.#record(
      slot,
      input.release
        ? { at: now, generation, kind: "released", actor: input.actor, note: "abandoned" }
        : { at: now, generation, kind: "claimed", actor: input.actor },
    );
    return { record: clone(record), previous };
  }

  async recordPush(key: SubjectKey, generation: number, at: number): Promise<void> {
    const record = this.#slot(key).record;
    if (!record || record.generation !== generation || record.state !== "active") return;
    record.lastPushAt = Math.max(record.lastPushAt ?? at, at);
  }

  async forget(key: SubjectKey, now: number): Promise<void> {
    const slot = this.#slot(key);
    this.#deadlines.get(key.installationId)?.delete(`${key.repoId}:${key.issue}`);
    delete slot.activityAt;
    const record = slot.record;
    if (!record || record.state === "revoked") return;
    forgottenRecord(record, now);
    this.#record(slot, { at: now, generation: record.generation, kind: "revoked", note: "forgotten" });
  }

  async purgeInstallation(installationId: number): Promise<void> {
    for (const id of this.#slots.keys()) {
      if (id.startsWith(`${installationId}:`)) this.#slots.delete(id);
    }
    this.#epochs.delete(installationId);
    this.#deadlines.delete(installationId);
    this.#installations.delete(installationId);
  }

  async listRepository(installationId: number, repoId: number, limit: number): Promise<ClaimRecord[]> {
    if (limit <= 0) return [];
    const listed: { issue: string; at: number; record: ClaimRecord | null }[] = [];
    for (const [id, slot] of this.#slots) {
      if (slot.activityAt === undefined || !id.startsWith(`${installationId}:${repoId}:`)) continue;
      listed.push({ issue: id.slice(id.lastIndexOf(":") + 1), at: slot.activityAt, record: slot.record });
    }
    // Ties in reverse order of the member string, as ZREVRANGE orders them.
    listed.sort((a, b) => b.at - a.at || (a.issue < b.issue ? 1 : a.issue > b.issue ? -1 : 0));
    return listed.slice(0, limit).flatMap(({ record }) => (record ? [clone(record)] : []));
  }

  async repositories(installationId: number): Promise<number[]> {
    const ids = new Set<number>();
    for (const [id, slot] of this.#slots) {
      const [installation, repoId] = id.split(":");
      if (slot.record && installation === String(installationId)) ids.add(Number(repoId));
    }
    return [...ids].sort((a, b) => a - b);
  }

  async rememberInstallation(installationId: number): Promise<void> {
    this.#installations.add(installationId);
  }

  async installations(): Promise<number[]> {
    return [...this.#installations].sort((a, b) => a - b);
  }

  async activeCount(installationId: number): Promise<number> {
    return this.#deadlines.get(installationId)?.size ?? 0;
  }

  async firstDelivery(deliveryId: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const name = `delivery:${deliveryId}`;
    if (this.#alive(name) !== undefined) return false;
    this.#expiring.set(name, { value: "1", expiresAt: this.#now() + ttlMs });
    return true;
  }

  async acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const held = this.#alive(`lock:${name}`);
    if (held !== undefined && held !== owner) return false;
    this.#expiring.set(`lock:${name}`, { value: owner, expiresAt: this.#now() + ttlMs });
    return true;
  }

  async releaseLock(name: string, owner: string): Promise<void> {
    if (this.#alive(`lock:${name}`) === owner) this.#expiring.delete(`lock:${name}`);
  }

  async putDocument(name: string, value: unknown, ttlMs: number): Promise<void> {
    checkTtl(ttlMs);
    this.#expiring.set(`doc:${name}`, { value: encodeDocument(name, value), expiresAt: this.#now() + ttlMs });
  }

  async getDocument(name: string): Promise<unknown> {
    const json = this.#alive(`doc:${name}`);
    return json === undefined ? null : JSON.parse(json);
  }

  /** The value of an expiring key, or undefined once its time is up (as Redis would have dropped it). */
  #alive(name: string): string | undefined {
    const entry = this.#expiring.get(name);
    if (!entry) return undefined;
    if (this.#now() >= entry.expiresAt) {
      this.#expiring.delete(name);
      return undefined;
    }
    return entry.value;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}

/** Why an App-made transition (endClaim) must leave the record alone, or null when it may proceed. */
export function endGuard(
  current: ClaimRecord | null,
  input: { generation: number; now: number; requireSilentMs?: number; storeEpoch?: number },
): "missing" | "moved-on" | "not-active" | "live" | null {
  if (!current) return "missing";
  if (current.generation !== input.generation) return "moved-on";
  if (current.state !== "active") return "not-active";
  if (input.requireSilentMs !== undefined) {
    // Silence before the store's epoch is unknown, not proven (invariant 7).
    const since = Math.max(aliveAt(current), input.storeEpoch ?? 0);
    if (input.now - since < input.requireSilentMs) return "live";
  }
  return null;
}

export function markStaleGuard(
  current: ClaimRecord | null,
  input: MarkStaleInput,
): "missing" | "moved-on" | "not-active" | "live" | "already-marked" | null {
  const early = endGuard(current, { generation: input.generation, now: input.now });
  if (early) return early;
  if (current!.staleMarkedAt !== undefined) return "already-marked";
  return endGuard(current, input);
}

/**
 * A forgotten subject's record: revoked, and synced because its issue left the repository, so
 * there is nothing on GitHub left to write.
 */
function forgottenRecord(record: ClaimRecord, now: number): void {
  record.state = "revoked";
  record.endedAt = now;
  record.sync = "done";
  delete record.takeover;
}

export function goneReason(record: ClaimRecord): GoneReason {
  switch (record.state) {
    case "completed":
      return "completed";
    case "reaped":
      return "reaped";
    case "revoked":
      return "revoked";
    default:
      return "released";
  }
}

function clone<T>(value: T): T {
  return structuredClone(value);
}
