// The claim comment: a readable line plus the machine-readable `claim-hold:v1` marker, rendered and parsed.
import { z } from "zod";
import { Actor, type ClaimRecord, TaskClass } from "./claim.js";
import { describeActor, inert } from "./inert-text.js";
import type { MarkerSeal } from "./marker-seal.js";

export const markerStates = [
  "active",
  "stale",
  "released",
  "completed",
  "superseded",
  "reaped",
  "revoked",
] as const;
export const MarkerState = z.enum(markerStates);
export type MarkerState = z.infer<typeof MarkerState>;

/**
 * Generations stay far inside what lease ids carry (`parseLeaseId` takes up to 2^31): a marker
 * naming more is absurd, rejected, never obeyed.
 */
export const maxMarkerGeneration = 2 ** 31 - 1;
const Generation = z.number().int().positive().max(maxMarkerGeneration);

export const ClaimMarker = z.strictObject({
  subject: z.string().regex(/^[\w.-]+\/[\w.-]+#\d+$/),
  generation: Generation,
  state: MarkerState,
  actor: Actor,
  taskClass: TaskClass,
  branch: z.string().max(255).optional(),
  claimedAt: z.iso.datetime(),
  ttlSeconds: z.number().int().positive(),
  reclaimAfterSeconds: z.number().int().positive().optional(),
  heartbeatSeconds: z.number().int().positive().optional(),
  tokenDigest: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  supersedes: Generation.optional(),
  /** On an ended claim: the generation minted when it ended (reap, revoke), so none is ever reused. */
  nextGeneration: Generation.optional(),
  appAssigned: z.boolean().optional(),
  artifacts: z.string().max(500).optional(),
  /** HMAC-SHA256 over the other fields (invariant 11); set by `MarkerSeal`, checked before any use. */
  mac: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});
export type ClaimMarker = z.infer<typeof ClaimMarker>;

const markerPattern = /<!-- claim-hold:v1 (.*?) -->/s;
const markerOpening = /<!--\s*claim-hold:v1/g;

export type MarkerParse =
  | { kind: "none" }
  | { kind: "marker"; marker: ClaimMarker }
  | { kind: "rejected"; reason: string };

/**
 * Total: never throws, whatever the comment body holds. A claim comment holds exactly one marker,
 * as its last line; any other placement is rejected. This checks the shape only: trust needs
 * `verifyClaimMarker` too.
 */
export function parseClaimMarker(body: unknown): MarkerParse {
  if (typeof body !== "string") return { kind: "none" };
  const openings = body.match(markerOpening)?.length ?? 0;
  if (openings === 0) return { kind: "none" };
  if (openings > 1) return { kind: "rejected", reason: "more than one marker in one comment" };
  const match = markerPattern.exec(body);
  if (!match) return { kind: "rejected", reason: "marker is not closed" };
  if (body.slice(match.index + match[0].length).trim() !== "") {
    return { kind: "rejected", reason: "marker is not the comment's last line" };
  }
  let json: unknown;
  try {
    json = JSON.parse(match[1] ?? "");
  } catch {
    return { kind: "rejected", reason: "marker is not valid JSON" };
  }
  const parsed = ClaimMarker.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      kind: "rejected",
      reason: `marker field ${issue?.path.join(".") || "(root)"}: ${issue?.message}`,
    };
  }
  return { kind: "marker", marker: parsed.data };
}

/** Shape and MAC: the only marker the App obeys (invariant 11). */
export function verifyClaimMarker(body: unknown, seal: MarkerSeal): MarkerParse {
  const parsed = parseClaimMarker(body);
  if (parsed.kind !== "marker") return parsed;
  if (!parsed.marker.mac) return { kind: "rejected", reason: "marker is not signed" };
  if (!seal.verify(parsed.marker)) return { kind: "rejected", reason: "marker signature does not verify" };
  return parsed;
}

function markerLine(marker: ClaimMarker): string {
  const json = JSON.stringify(marker).replace(/</g, "\\u003c").replace(/>/g, "\\u003e");
  return `<!-- claim-hold:v1 ${json} -->`;
}

/**
 * Signs the marker of a claim comment the App is about to write; a body without a marker of its
 * own shape is returned as it is (audit comments carry none).
 */
export function sealClaimComment(body: string, seal: MarkerSeal): string {
  const parsed = parseClaimMarker(body);
  if (parsed.kind !== "marker") return body;
  const match = markerPattern.exec(body)!;
  const { mac: _old, ...unsigned } = parsed.marker;
  return `${body.slice(0, match.index)}${markerLine(seal.seal(unsigned))}`;
}

/** The marker state a record's claim comment shows. */
export function markerStateOfRecord(record: ClaimRecord): MarkerState {
  if (record.state === "active") return record.staleMarkedAt !== undefined ? "stale" : "active";
  if (record.state === "human") return "active";
  return record.state;
}

export function markerOf(record: ClaimRecord, state: MarkerState, nextGeneration?: number): ClaimMarker {
  return {
    subject: `${record.repo}#${record.issue}`,
    generation: record.generation,
    state,
    actor: record.actor,
    taskClass: record.taskClass,
    ...(record.branch ? { branch: record.branch } : {}),
    claimedAt: new Date(record.claimedAt).toISOString(),
    ttlSeconds: Math.round(record.durations.ttlMs / 1000),
    reclaimAfterSeconds: Math.round(record.durations.reclaimAfterMs / 1000),
    heartbeatSeconds: Math.round(record.durations.heartbeatMs / 1000),
    ...(record.tokenDigest ? { tokenDigest: record.tokenDigest } : {}),
    ...(record.supersedes ? { supersedes: record.supersedes } : {}),
    ...(nextGeneration && nextGeneration > record.generation ? { nextGeneration } : {}),
    appAssigned: record.appAssigned,
    ...(record.artifacts ? { artifacts: record.artifacts } : {}),
  };
}

function who(actor: Actor): string {
  if (actor.kind === "human") return describeActor(actor);
  return `${describeActor(actor)} (${inert(`@${actor.login}`)})`;
}

function minutes(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

const headline: Record<MarkerState, string> = {
  active: "🤖 Claimed by",
  stale: "⏸️ Stale claim (no heartbeat) by",
  released: "✅ Released by",
  completed: "✅ Completed by",
  superseded: "↪️ Superseded claim of",
  reaped: "🧹 Reaped claim of",
  revoked: "⛔ Revoked claim of",
};

/** A branch shown in a code span: only the characters a valid branch name may hold. */
export function branchCode(branch: string): string {
  return `\`${branch.replace(/[^\w./-]/g, "").slice(0, 255)}\``;
}

/**
 * A claim comment as written, moved to a final state: the headline and the marker's `state` (and
 * `nextGeneration`) change, the rest stays. For a comment whose incarnation ended before the App
 * learned the comment's id (its write landed late); null when the body holds no marker.
 */
export function restateClaimComment(
  body: string,
  state: MarkerState,
  nextGeneration?: number,
): string | null {
  const parsed = parseClaimMarker(body);
  if (parsed.kind !== "marker") return null;
  const match = markerPattern.exec(body)!;
  const { mac: _mac, nextGeneration: _next, ...marker } = parsed.marker;
  const restated: ClaimMarker = {
    ...marker,
    state,
    ...(nextGeneration && nextGeneration > marker.generation ? { nextGeneration } : {}),
  };
  let text = body.slice(0, match.index);
  const old = headline[parsed.marker.state];
  if (text.startsWith(old)) text = `${headline[state]}${text.slice(old.length)}`;
  return `${text}${markerLine(restated)}`;
}

export function renderClaimComment(record: ClaimRecord, state: MarkerState, nextGeneration?: number): string {
  const parts = [`${headline[state]} ${who(record.actor)}`];
  if (record.branch) parts.push(`branch ${branchCode(record.branch)}`);
  if (record.actor.kind === "agent") parts.push(`heartbeat every ${minutes(record.durations.heartbeatMs)}`);
  parts.push(`generation ${record.generation}`);
  const lines = [parts.join(" · ")];
  if (record.phase && state === "active") lines.push(`Phase: ${inert(record.phase)}`);
  if (record.artifacts) lines.push(`Handoff material: ${inert(record.artifacts, { max: 500 })}`);
  lines.push("", markerLine(markerOf(record, state, nextGeneration)));
  return lines.join("\n");
}
