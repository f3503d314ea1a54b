// The claim record's Redis hash layout, and zod parsing of records and script replies read back.
import { z } from "zod";
import { type Actor, ClaimRecord } from "../../domain/claim.js";
import { FailedAttempt } from "../../domain/failure-breaker.js";
import type { ClearNeedsHumanOutcome, EndClaimOutcome, MarkStaleOutcome } from "../app-transition-types.js";
import type { ClaimOutcome, GoneReason, HeartbeatGaps, LeaseRefusal } from "../liveness-store.js";
import type { ReplyOf, ScriptReply } from "./script-runner.js";
import type {
  claimScript,
  clearNeedsHumanScript,
  endClaimScript,
  markStaleScript,
  verifyScript,
} from "./store-scripts.js";

/**
 * Record layout in its hash: scalar fields keep their names; `durations` is flattened into
 * ttlMs/reclaimAfterMs/heartbeatMs and `takeover` into takeoverBy/takeoverAt/takeoverGraceMs so the
 * scripts read them without decoding; actors and scope are JSON strings the scripts copy verbatim.
 */
type FieldCodec = "int" | "string" | "bool" | "json";
const fieldCodecs: Record<string, FieldCodec> = {
  installationId: "int",
  repoId: "int",
  issue: "int",
  repo: "string",
  generation: "int",
  state: "string",
  actor: "json",
  taskClass: "string",
  branch: "string",
  title: "string",
  claimedAt: "int",
  lastHeartbeatAt: "int",
  tokenDigest: "string",
  pendingTokenDigest: "string",
  sessionKeyDigest: "string",
  appAssigned: "bool",
  assigneeNodeId: "string",
  releasedAssigneeNodeIds: "json",
  sync: "string",
  issueNodeId: "string",
  commentNodeId: "string",
  commentId: "int",
  supersedes: "int",
  phase: "string",
  blocker: "string",
  needsHuman: "bool",
  budgetExhausted: "bool",
  budgetPaused: "bool",
  waitUntil: "int",
  pullRequest: "int",
  phaseCommentAt: "int",
  staleMarkedAt: "int",
  lastPushAt: "int",
  progressAt: "int",
  stallAfterMs: "int",
  onStall: "string",
  stalledAt: "int",
  stallAsk: "bool",
  scope: "json",
  artifacts: "string",
  endedAt: "int",
  outcome: "string",
  endedBy: "json",
};
const durationFields = ["ttlMs", "reclaimAfterMs", "heartbeatMs"] as const;

export function recordToFields(record: ClaimRecord): string[] {
  const fields: string[] = [];
  for (const [name, value] of Object.entries(record) as [string, unknown][]) {
    if (value === undefined) continue;
    if (name === "durations") {
      const durations = value as ClaimRecord["durations"];
      for (const field of durationFields) fields.push(field, String(durations[field]));
      continue;
    }
    if (name === "takeover") {
      const takeover = value as NonNullable<ClaimRecord["takeover"]>;
      fields.push(
        "takeoverBy",
        JSON.stringify(takeover.claimant),
        "takeoverAt",
        String(takeover.at),
        "takeoverGraceMs",
        String(takeover.graceMs),
        ...(takeover.keyDigest ? ["takeoverKeyDigest", takeover.keyDigest] : []),
      );
      continue;
    }
    const codec = fieldCodecs[name];
    if (!codec) throw new Error(`the Redis store cannot encode the claim record field "${name}"`);
    fields.push(name, codec === "json" ? JSON.stringify(value) : String(value));
  }
  return fields;
}

/** A record's hash fields (name, value pairs) as the record's object: numbers, flags and JSON decoded. */
function decodeFields(pairs: Iterable<readonly [string, string]>): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  const durations: Record<string, unknown> = {};
  const takeover: Record<string, unknown> = {};
  for (const [name, value] of pairs) {
    if ((durationFields as readonly string[]).includes(name)) durations[name] = toInt(value);
    else if (name === "takeoverBy") takeover.claimant = safeJson(value);
    else if (name === "takeoverAt") takeover.at = toInt(value);
    else if (name === "takeoverGraceMs") takeover.graceMs = toInt(value);
    else if (name === "takeoverKeyDigest") takeover.keyDigest = value;
    else {
      const codec = fieldCodecs[name];
      raw[name] =
        codec === "int"
          ? toInt(value)
          : codec === "bool"
            ? value === "true"
              ? true
              : value === "false"
                ? false
                : value
            : codec === "json"
              ? safeJson(value)
              : value;
    }
  }
  if (Object.keys(durations).length) raw.durations = durations;
  if (Object.keys(takeover).length) raw.takeover = takeover;
  return raw;
}

function* flatPairs(flat: string[]): Generator<readonly [string, string]> {
  for (let i = 0; i + 1 < flat.length; i += 2) yield [flat[i]!, flat[i + 1]!];
}

export function parseRecord(reply: ScriptReply | undefined): ClaimRecord {
  const raw = decodeFields(flatPairs(asArray(reply).map(String)));
  const parsed = ClaimRecord.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `corrupt claim record for ${String(raw.repoId)}#${String(raw.issue)}: ${parsed.error.message}`,
    );
  }
  return parsed.data;
}

export function parseOptionalRecord(reply: ScriptReply | undefined): ClaimRecord | null {
  return asArray(reply).length ? parseRecord(reply) : null;
}

export function parseActor(json: string): Actor {
  return ClaimRecord.shape.actor.parse(safeJson(json));
}

const GoneReasonValue = z.enum([
  "released",
  "reaped",
  "revoked",
  "completed",
  "expired",
]) satisfies z.ZodType<GoneReason>;

/** A lease's token refused (lua/includes/tokens.lua), as verify, heartbeat and release answer it. */
export type LeaseRefusalReply = Extract<ReplyOf<typeof verifyScript>, { kind: LeaseRefusal["kind"] }>;

export function parseRefusal(reply: LeaseRefusalReply): LeaseRefusal {
  switch (reply.kind) {
    case "missing":
    case "invalid_token":
      return { kind: reply.kind };
    case "superseded":
      return {
        kind: "superseded",
        current: parseRecord(reply.current),
        ...(reply.rotatedAt ? { rotatedAt: toInt(String(reply.rotatedAt)) } : {}),
      };
    case "gone":
      return {
        kind: "gone",
        reason: GoneReasonValue.parse(String(reply.reason)),
        current: parseRecord(reply.current),
      };
  }
}

/** A subject's `gaps` key as heartbeat-7.lua writes it: "<generation>:<ms>,<ms>,…". */
export function parseHeartbeatGaps(key: string, value: string | null): HeartbeatGaps | null {
  if (value === null) return null;
  const match = /^(\d+):(\d+(?:,\d+)*)$/.exec(value);
  if (!match) throw new Error(`corrupt heartbeat gaps at ${key}`);
  return { generation: Number(match[1]), gapsMs: match[2]!.split(",").map(Number) };
}

export function asArray(reply: ScriptReply | undefined): ScriptReply[] {
  return Array.isArray(reply) ? reply : [];
}

export function toInt(value: string): number {
  return /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
}

export function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** The claim script's answer, by kind. */
export function parseClaimReply(reply: ReplyOf<typeof claimScript>): ClaimOutcome {
  switch (reply.kind) {
    case "created":
      return {
        kind: "created",
        record: parseRecord(reply.record),
        previous: parseOptionalRecord(reply.previous),
        ...(reply.writeLocked === "" ? {} : { writeLocked: reply.writeLocked === "1" }),
        ...withFailures(parseFailures(reply.failures)),
      };
    case "failing":
      return {
        kind: "failing",
        previous: parseRecord(reply.previous),
        record: parseRecord(reply.record),
        failures: parseFailures(reply.failures),
      };
    case "tripped":
      return { kind: "tripped", failures: Number(reply.failures) };
    case "reclaimed":
      return { kind: "reclaimed", record: parseRecord(reply.record) };
    case "held":
      return {
        kind: "held",
        current: parseRecord(reply.current),
        ...(reply.intent ? { takeoverPendingBy: parseActor(String(reply.intent)) } : {}),
      };
    case "human_held":
      return { kind: "human_held", current: parseRecord(reply.current) };
    case "takeover_pending":
      return {
        kind: "takeover_pending",
        current: parseRecord(reply.current),
        retryAfterMs: Number(reply.retryAfterMs),
      };
    case "cap_reached":
      return {
        kind: "cap_reached",
        limit: reply.limit === "session" ? "session" : "login",
        max: Number(reply.max),
      };
  }
}

const EndClaimSkip = z.enum(["missing", "moved-on", "not-active", "live"]);
const MarkStaleSkip = z.enum(["missing", "moved-on", "not-active", "live", "already-marked"]);

export function parseEndClaimReply(reply: ReplyOf<typeof endClaimScript>): EndClaimOutcome {
  if (reply.kind === "ended") {
    const ended = {
      kind: "ended" as const,
      previous: parseRecord(reply.previous),
      record: parseRecord(reply.record),
    };
    const failures = parseFailures(reply.failures);
    return failures.length > 0 ? { ...ended, failures } : ended;
  }
  return {
    kind: "skipped",
    reason: EndClaimSkip.parse(reply.reason),
    current: parseOptionalRecord(reply.current),
  };
}

export function parseMarkStaleReply(reply: ReplyOf<typeof markStaleScript>): MarkStaleOutcome {
  if (reply.kind === "marked") return { kind: "marked", record: parseRecord(reply.record) };
  return {
    kind: "skipped",
    reason: MarkStaleSkip.parse(reply.reason),
    current: parseOptionalRecord(reply.current),
  };
}

const ClearNeedsHumanSkip = z.enum(["missing", "moved-on", "nothing"]);

export function parseClearNeedsHumanReply(
  reply: ReplyOf<typeof clearNeedsHumanScript>,
): ClearNeedsHumanOutcome {
  if (reply.kind === "cleared") {
    return {
      kind: "cleared",
      record: parseRecord(reply.record),
      withdrewAsk: reply.withdrewAsk === "1",
      failuresCleared: Number(reply.failuresCleared),
    };
  }
  return {
    kind: "skipped",
    reason: ClearNeedsHumanSkip.parse(reply.reason),
    current: parseOptionalRecord(reply.current),
  };
}

/** The failure breaker's attempts as the `fail` list holds them (JSON each, oldest first). */
export function parseFailures(reply: unknown): FailedAttempt[] {
  if (!Array.isArray(reply)) return [];
  return reply.map((entry) => {
    const parsed = FailedAttempt.safeParse(safeJson(String(entry)));
    if (!parsed.success) throw new Error(`corrupt failed attempt: ${parsed.error.message}`);
    return parsed.data;
  });
}

/** `failures` when there are any, else nothing. */
function withFailures(failures: FailedAttempt[]): { failures?: FailedAttempt[] } {
  return failures.length > 0 ? { failures } : {};
}
