// A forge that reports an issue's labels and assignees as they now are, not the one removed (Gitea, Forgejo): what a person took off, from what the App showed (pure).
import type { ClaimRecord } from "../domain/claim.js";
import { type ActorKind, countsAsPerson } from "../domain/trust.js";

/** Who changed the issue: the App's own account, an account that runs agents, or a person. */
export type ChangeSender = ActorKind;

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
  if (!countsAsPerson(evidence.sender, "claim-removal")) return [];
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

/**
 * The removals `inferRemovals` would name once the record's write in flight has landed (`sync`
 * done): a person's change delivered while the App's write is still on its way is decided after it,
 * on the record it leaves and the issue read then (`confirmRemovals`). Empty when nothing is in flight.
 */
export function removalsOnceWritten(evidence: RemovalEvidence): InferredRemoval[] {
  const { record } = evidence.shown;
  if (record?.sync !== "pending") return [];
  return inferRemovals({ ...evidence, shown: { ...evidence.shown, record: { ...record, sync: "done" } } });
}

/** The issue's labels and assignees' logins as the forge answers them now (a read, not the delivery). */
export interface IssueListsNow {
  labels: readonly string[];
  assignees: readonly string[];
}

/**
 * The removals a delivery names that the issue, read from the forge now, still shows: Gitea sends
 * the list as it was after that change, so a late or replayed delivery names a state that has
 * passed (the claimed label put back, the agent assigned again) and must not revoke a live claim.
 */
export function confirmRemovals(evidence: RemovalEvidence, current: IssueListsNow): InferredRemoval[] {
  const delivered = inferRemovals(evidence);
  if (delivered.length === 0) return [];
  const now = evidence.changed === "labels" ? current.labels : current.assignees;
  const still = inferRemovals({ ...evidence, now });
  return delivered.filter((removal) => still.some((found) => sameRemoval(found, removal)));
}

function sameRemoval(a: InferredRemoval, b: InferredRemoval): boolean {
  if (a.kind === "label" && b.kind === "label") return a.name.toLowerCase() === b.name.toLowerCase();
  if (a.kind === "assignee" && b.kind === "assignee") return a.login.toLowerCase() === b.login.toLowerCase();
  return false;
}
