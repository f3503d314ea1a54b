// A forge that reports an issue's labels and assignees as they now are, not the one removed (Gitea, Forgejo): what a person took off, from what the App showed (pure).
import type { ClaimRecord } from "../domain/claim.js";

/** Who changed the issue: the App's own account, an account that runs agents, or a person. */
export type ChangeSender = "app" | "fleet" | "person";

/** What the App wrote and knows to have landed, as the store records it. */
export interface ShownByApp {
  /** The subject's claim record (null: none). */
  record: ClaimRecord | null;
  /** The breaker's trip (the needs-human label) is marked written (`tripWrittenThrough`) and still stands. */
  tripShown: boolean;
  /** The live holder's ask put the needs-human label on and the write landed (its throttle's document says so). */
  askShown: boolean;
}

export interface RemovalEvidence {
  sender: ChangeSender;
  /** Which list the delivery is about (a label change, an unassignment). */
  changed: "labels" | "assignees";
  /** The issue's labels, or assignees' logins, as the delivery says they now are. */
  now: readonly string[];
  shown: ShownByApp;
  labels: { claimed: string; stale: string; needsHuman: string };
}

/** A removal as GitHub would have reported it: the label or assignee taken off. */
export type InferredRemoval = { kind: "label"; name: string } | { kind: "assignee"; login: string };

/**
 * The App-made labels and assignment a person took off: only what the record says the App shows
 * (its write landed: `sync` done, or the needs-human write recorded) and the issue now lacks. The
 * App's own writes and an agent account's never count. A claimed label is missed only when the
 * stale label is gone too: while a stale mark is being lifted the issue shows `stale` and not yet
 * `claimed`, and a person's edit of another label then is no evidence.
 */
export function inferRemovals(evidence: RemovalEvidence): InferredRemoval[] {
  if (evidence.sender !== "person") return [];
  const { record, tripShown, askShown } = evidence.shown;
  const has = new Set(evidence.now.map((name) => name.toLowerCase()));
  const lacks = (name: string) => !has.has(name.toLowerCase());
  const liveAgentClaim =
    record?.state === "active" && record.actor.kind === "agent" && record.sync === "done";
  const removals: InferredRemoval[] = [];
  if (evidence.changed === "assignees") {
    if (liveAgentClaim && record.appAssigned && lacks(record.actor.login)) {
      removals.push({ kind: "assignee", login: record.actor.login });
    }
    return removals;
  }
  const { claimed, stale, needsHuman } = evidence.labels;
  if (liveAgentClaim && record.staleMarkedAt === undefined && lacks(claimed) && lacks(stale)) {
    removals.push({ kind: "label", name: claimed });
  }
  if ((tripShown || askShown) && lacks(needsHuman)) removals.push({ kind: "label", name: needsHuman });
  return removals;
}
