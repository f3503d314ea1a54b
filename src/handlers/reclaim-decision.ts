// `/reclaim`, the pure part (docs/reference/github-surfaces.md#reclaim): is a comment a command, may its author reclaim, and the one batched write.
import type { EmitterWebhookEvent } from "@octokit/webhooks";
import type { RepoConfig } from "../config/repo-config.js";
import { type ClaimRecord, subjectName } from "../domain/claim.js";
import { renderClaimComment } from "../domain/claim-marker.js";
import { describeActor, inert } from "../domain/inert-text.js";
import type { CheckChange } from "../fence/merge-fence.js";
import { hasPermission } from "../http/auth.js";
import { parseReclaimCommand, type ReclaimCommand } from "../lease/reclaim-command.js";
import { latestMarker, markerHolds } from "../lease/recovery/restore-from-comments.js";
import type { RepoPermission, SubjectSnapshot, TransitionWrite } from "../providers/assignment-provider.js";

export type CommentPayload = EmitterWebhookEvent<"issue_comment.created">["payload"];

/** decide, step 1: is this a command for us at all? (No I/O.) */
export function commandOf(payload: CommentPayload): ReclaimCommand | null {
  // Bot senders never reach here (the webhook guard); the comment's own author is checked as well.
  if (payload.comment.user?.type === "Bot") return null;
  if (payload.issue.pull_request) return null;
  if (!payload.installation) return null;
  return parseReclaimCommand(payload.comment.body);
}

export interface ReclaimEvidence {
  command: ReclaimCommand;
  commenter: string;
  /** The commenter runs agents (the trust model's fleet login): a person's command is not theirs. */
  commenterIsFleet: boolean;
  permission: RepoPermission;
  needed: RepoPermission;
  snapshot: SubjectSnapshot;
  record: ClaimRecord | null;
}

export type ReclaimDecision =
  | { kind: "refuse"; reply: string }
  | { kind: "reclaim"; release: boolean; assign: boolean };

export const live = (record: ClaimRecord | null): boolean =>
  record?.state === "active" || record?.state === "human";

/**
 * The login whose assignment the App made for `record` and has not yet removed: a live claim's, or an
 * ended claim's whose ending write never landed (`sync: pending`).
 */
export function appMadeLogin(record: ClaimRecord | null): string | null {
  if (!record?.appAssigned) return null;
  return live(record) || record.sync === "pending" ? record.actor.login.toLowerCase() : null;
}

/** decide, step 2: refuse or reclaim, from the commenter's permission and who holds the subject. */
export function decideReclaim(evidence: ReclaimEvidence): ReclaimDecision {
  const { commenter, permission, needed, snapshot, record } = evidence;
  const subject = subjectName(snapshot.repo, snapshot.issue);
  if (evidence.commenterIsFleet) {
    // Inert: no mention of the fleet account, nothing from the comment repeated.
    return {
      kind: "refuse",
      reply: `\`/reclaim\` is for people. \`${commenter}\` runs agent sessions here (it held agent claims through claim-hold or is listed in \`agents.logins\`), so this comment changed nothing on ${subject}. An agent takes a claim over through the claim-hold API (\`claim-hold claim ${subject} --takeover\`), which gives the holder its grace beat.`,
    };
  }
  if (!hasPermission(permission, needed)) {
    return {
      kind: "refuse",
      reply: `@${commenter}, sorry: \`/reclaim\` needs ${needed} permission on ${snapshot.repo} (you have ${permission}). Nothing was changed.`,
    };
  }
  const appMade = appMadeLogin(record);
  const humans = new Set(
    snapshot.assignees.map((a) => a.login).filter((login) => login.toLowerCase() !== appMade),
  );
  if (record?.state === "human") humans.add(record.actor.login);
  const me = commenter.toLowerCase();
  const mine = [...humans].some((login) => login.toLowerCase() === me);
  if (humans.size > 0 && !mine && !hasPermission(permission, "maintain")) {
    const holders = [...humans].map((login) => `@${login}`).join(", ");
    return {
      kind: "refuse",
      reply: `@${commenter}, sorry: ${subject} is held by ${holders}; only they or a maintainer can \`/reclaim\` it. Nothing was changed.`,
    };
  }
  const alreadyAssigned = snapshot.assignees.some((a) => a.login.toLowerCase() === me);
  return {
    kind: "reclaim",
    release: evidence.command.release,
    assign: !evidence.command.release && !alreadyAssigned,
  };
}

/**
 * Who `/reclaim release` unassigns: everyone assigned now, and the previous claim's App-made assignee,
 * whose own write may not have landed yet.
 */
export function releasedAssignees(snapshot: SubjectSnapshot, record: ClaimRecord | null): string[] {
  return [
    ...new Set([
      ...snapshot.assignees.map((a) => a.nodeId),
      // Only while that assignment may still stand: a live claim's, or an ended one's unwritten.
      ...(appMadeLogin(record) && record?.assigneeNodeId ? [record.assigneeNodeId] : []),
    ]),
  ];
}

/** The one batched write of a reclaim (pure). */
export function reclaimWrite(input: {
  snapshot: SubjectSnapshot;
  previous: ClaimRecord | null;
  record: ClaimRecord;
  config: RepoConfig;
  commenter: { login: string; nodeId: string };
  assign: boolean;
  changes: CheckChange[];
  /** How the reply names who acted (default `@login`): the dashboard's operator is not a GitHub account. */
  byline?: string;
  /** The operator's note, quoted inert in the reply. */
  note?: string;
}): TransitionWrite {
  const { snapshot, previous, record, config, commenter, changes } = input;
  const release = record.state !== "human";
  const write: TransitionWrite = { subjectNodeId: snapshot.nodeId };
  const keepOwn = !release && previous?.actor.login.toLowerCase() === commenter.login.toLowerCase();
  const appMade = keepOwn ? null : appMadeLogin(previous);
  if (appMade) {
    // A record restored from its comment may lack the node id: the snapshot's assignee of that login.
    const left = snapshot.assignees.find((a) => a.login.toLowerCase() === appMade)?.nodeId;
    const nodeId = left ?? (live(previous) ? previous?.assigneeNodeId : undefined);
    if (nodeId) write.unassign = [nodeId];
  }
  // The newest trusted claim comment may name an App-made agent assignment the store no longer
  // knows of (a claim rolled back after its write landed anyway): it goes as well.
  const latest = latestMarker(snapshot)?.marker;
  if (latest && markerHolds(latest) && latest.appAssigned && latest.actor.kind === "agent") {
    const login = latest.actor.login.toLowerCase();
    const left = snapshot.assignees.find((a) => a.login.toLowerCase() === login);
    if (left && login !== commenter.login.toLowerCase()) {
      write.unassign = [...new Set([...(write.unassign ?? []), left.nodeId])];
    }
  }
  // `/reclaim release` promises that nobody is assigned: decideReclaim already checked that the
  // commenter may release the humans' assignments (their own, or as a maintainer).
  if (release) {
    const everyone = new Set([...(write.unassign ?? []), ...snapshot.assignees.map((a) => a.nodeId)]);
    if (everyone.size) write.unassign = [...everyone];
  }
  // An agent's ask for a person ends with its claim, whichever form of the command ended it.
  const managed = [config.labels.claimed, config.labels.stale, config.labels.needsHuman].map((l) =>
    l.toLowerCase(),
  );
  const present = snapshot.labels.filter((l) => managed.includes(l.toLowerCase()));
  if (present.length) write.removeLabels = present;
  if (input.assign) write.assign = [commenter.nodeId];
  if (previous && live(previous) && previous.commentNodeId) {
    write.editComments = [
      {
        nodeId: previous.commentNodeId,
        body: renderClaimComment(previous, release ? "revoked" : "superseded"),
      },
    ];
  }
  write.createClaimComment = renderClaimComment(record, release ? "released" : "active");
  write.addComments = [
    replyOf({
      previous,
      record,
      by: input.byline ?? `@${commenter.login}`,
      assign: input.assign,
      changes,
      ...(input.note ? { note: input.note } : {}),
    }),
  ];
  return write;
}

function replyOf(input: {
  previous: ClaimRecord | null;
  record: ClaimRecord;
  by: string;
  assign: boolean;
  changes: CheckChange[];
  note?: string;
}): string {
  const { previous, record, by, changes } = input;
  const release = record.state !== "human";
  const lines = [
    release
      ? `🔁 ${by} released this issue back to the queue (generation ${record.generation}); nobody holds it now.`
      : `🔁 ${by} reclaimed this issue (generation ${record.generation})${input.assign ? " and is now assigned" : ""}.`,
  ];
  if (previous && live(previous)) {
    lines.push(`${describeActor(previous.actor)} lost the claim (generation ${previous.generation}).`);
  } else if (previous) {
    lines.push(`No claim was live; the last one was generation ${previous.generation} (${previous.state}).`);
  }
  if (input.note) lines.push(`Note: ${inert(input.note, { max: 500 })}`);
  const flipped = changes.filter((c) => c.before !== c.after);
  lines.push(
    flipped.length
      ? `Pull request checks that changed: ${flipped.map((c) => `#${c.number} ${c.before ?? "none"} → ${c.after}`).join(", ")}.`
      : "No pull request check changed.",
  );
  return lines.join("\n");
}
