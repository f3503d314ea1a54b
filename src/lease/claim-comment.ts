// The claim comment: a readable line plus the machine-readable `claim-hold:v1` marker, rendered and parsed.
import { z } from "zod";
import { Actor, type ClaimRecord, TaskClass } from "../domain/claim.js";

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

export const ClaimMarker = z.strictObject({
  subject: z.string().regex(/^[\w.-]+\/[\w.-]+#\d+$/),
  generation: z.number().int().positive(),
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
  supersedes: z.number().int().positive().optional(),
  /** On an ended claim: the generation minted when it ended (reap, revoke), so none is ever reused. */
  nextGeneration: z.number().int().positive().optional(),
  appAssigned: z.boolean().optional(),
  artifacts: z.string().max(500).optional(),
});
export type ClaimMarker = z.infer<typeof ClaimMarker>;

const markerPattern = /<!-- claim-hold:v1 (.*?) -->/s;

export type MarkerParse =
  | { kind: "none" }
  | { kind: "marker"; marker: ClaimMarker }
  | { kind: "rejected"; reason: string };

/** Total: never throws, whatever the comment body holds. */
export function parseClaimMarker(body: unknown): MarkerParse {
  if (typeof body !== "string") return { kind: "none" };
  const match = markerPattern.exec(body);
  if (!match) return { kind: "none" };
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
  if (actor.kind === "human") return `@${actor.login}`;
  const session = actor.sessionId ? ` session ${actor.sessionId.slice(0, 8)}` : "";
  const host = actor.host ? ` on ${actor.host}` : "";
  return `${actor.runtime ?? "agent"}${session}${host} (@${actor.login})`;
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

/** Markdown text is escaped so an actor field cannot inject links, mentions or HTML. */
function plain(text: string): string {
  return text.replace(/[\\`*_{}[\]<>()#+!|~@-]/g, (c) => `\\${c}`);
}

export function renderClaimComment(record: ClaimRecord, state: MarkerState, nextGeneration?: number): string {
  const parts = [`${headline[state]} ${plain(who(record.actor))}`];
  if (record.branch) parts.push(`branch \`${record.branch.replace(/`/g, "")}\``);
  if (record.actor.kind === "agent") parts.push(`heartbeat every ${minutes(record.durations.heartbeatMs)}`);
  parts.push(`generation ${record.generation}`);
  const lines = [parts.join(" · ")];
  if (record.phase && state === "active") lines.push(`Phase: ${plain(record.phase)}`);
  if (record.artifacts) lines.push(`Handoff material: ${plain(record.artifacts)}`);
  const json = JSON.stringify(markerOf(record, state, nextGeneration))
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e");
  lines.push("", `<!-- claim-hold:v1 ${json} -->`);
  return lines.join("\n");
}
