// The one line a person reads when a command fails: the server's sentence, plus what to do about a refusal.
import { actorName } from "../actions/actor-name.js";
import { ActorSchema, isClaimHoldError } from "../client/index.js";
import { relativeTime } from "./relative-time.js";

/** A holder that is not live can be taken over (the API answers 202 takeover_pending, then the claim). */
const takeoverStates = new Set(["stale", "reclaimable", "awaiting-review"]);

/** The error's message; for `held`, who holds it, when it becomes reclaimable and whether `--takeover` applies. */
export function describeError(error: unknown, now: number): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!isClaimHoldError(error) || error.code !== "held") return message;
  const details = error.details;
  const holder = ActorSchema.safeParse(details.holder);
  const parts: string[] = [];
  if (holder.success) parts.push(`holder ${actorName(holder.data)}`);
  if (typeof details.state === "string") parts.push(`state ${details.state}`);
  if (typeof details.lastHeartbeatAt === "string") {
    parts.push(`last heartbeat ${relativeTime(details.lastHeartbeatAt, now)}`);
  }
  if (typeof details.reclaimableAt === "string") {
    parts.push(`reclaimable ${relativeTime(details.reclaimableAt, now)}`);
  }
  const pending = ActorSchema.safeParse(details.takeoverPendingBy);
  const subject = typeof details.subject === "string" ? details.subject : undefined;
  let advice = "";
  if (pending.success) advice = `; a takeover by ${actorName(pending.data)} is pending`;
  else if (typeof details.state === "string" && takeoverStates.has(details.state)) {
    advice = `; the holder is not live: take it over with --takeover${subject ? ` (claim-hold claim ${subject} --takeover)` : ""}`;
  } else if (typeof details.reclaimableAt === "string") {
    advice = "; pick other work (claim-hold next), or claim again with --takeover once the holder goes stale";
  }
  if (parts.length === 0 && !advice) return message;
  const sentence = message.replace(/\.$/, "");
  return parts.length > 0 ? `${sentence} (${parts.join(" · ")})${advice}` : `${sentence}${advice}`;
}
