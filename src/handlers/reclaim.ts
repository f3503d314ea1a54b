// `/reclaim` on issue_comment.created (SPEC §5): a human with permission takes a subject back from any claim.
//
// 1. skip bots, edits, PR comments and comments without the command (no GitHub request at all);
// 2. dedupe: by delivery id, then by comment id (a redelivery under a new id changes nothing twice);
// 3. 👀 on receipt; permission and the subject's state are read once each;
// 4. decideReclaim (pure): refuse politely, or reclaim;
// 5. store.humanClaim (new generation), re-run the linked PR checks, then ONE batched mutation:
//    unassign, unlabel, assign, old claim comment → superseded/revoked, new claim comment, reply.
import type { EmitterWebhookEvent } from "@octokit/webhooks";
import type { Logger } from "pino";
import type { RepoConfig } from "../config/repo-config.js";
import { type Actor, type ClaimRecord, type SubjectKey, subjectName } from "../domain/claim.js";
import { hasPermission } from "../http/auth.js";
import { renderClaimComment } from "../lease/claim-comment.js";
import { fenceOf } from "../lease/fenced-writes.js";
import { describe, type RepoConfigSource } from "../lease/lease-core.js";
import type { CheckChange, MergeFence } from "../lease/merge-fence.js";
import { parseReclaimCommand, type ReclaimCommand } from "../lease/reclaim-command.js";
import {
  highestGeneration,
  latestMarker,
  markerHolds,
  recordFromMarker,
} from "../lease/restore-from-comments.js";
import type {
  AssignmentProvider,
  IdentityProvider,
  RepoPermission,
  SubjectSnapshot,
  TransitionWrite,
} from "../providers/assignment-provider.js";
import type { CommentReactions } from "../providers/comment-reactions.js";
import type { FenceStore } from "../providers/fence-store.js";
import type { LivenessStore } from "../providers/liveness-store.js";
import { deliveryMemoryMs, isFromBot } from "./webhook-guard.js";

type CommentPayload = EmitterWebhookEvent<"issue_comment.created">["payload"];

/** How long a handled comment id is remembered (longer than GitHub keeps redelivering). */
export const commandMemoryMs = 7 * 24 * 60 * 60_000;

export interface ReclaimDeps {
  store: LivenessStore;
  fences: FenceStore;
  fence: MergeFence;
  assignments: AssignmentProvider;
  identity: Pick<IdentityProvider, "permission">;
  configs: RepoConfigSource;
  reactions: CommentReactions;
  now: () => number;
  log: Logger;
}

/** decide, step 1: is this a command for us at all? (No I/O.) */
export function commandOf(payload: CommentPayload): ReclaimCommand | null {
  if (isFromBot(payload) || payload.comment.user?.type === "Bot") return null;
  if (payload.issue.pull_request) return null;
  if (!payload.installation) return null;
  return parseReclaimCommand(payload.comment.body);
}

export interface ReclaimEvidence {
  command: ReclaimCommand;
  commenter: string;
  permission: RepoPermission;
  needed: RepoPermission;
  snapshot: SubjectSnapshot;
  record: ClaimRecord | null;
}

export type ReclaimDecision =
  | { kind: "refuse"; reply: string }
  | { kind: "reclaim"; release: boolean; assign: boolean };

const live = (record: ClaimRecord | null): boolean => record?.state === "active" || record?.state === "human";

/**
 * The login whose assignment the App made for `record` and has not yet removed: a live claim's, or an
 * ended claim's whose ending write never landed (`sync: pending`).
 */
function appMadeLogin(record: ClaimRecord | null): string | null {
  if (!record?.appAssigned) return null;
  return live(record) || record.sync === "pending" ? record.actor.login.toLowerCase() : null;
}

/** decide, step 2: refuse or reclaim, from the commenter's permission and who holds the subject. */
export function decideReclaim(evidence: ReclaimEvidence): ReclaimDecision {
  const { commenter, permission, needed, snapshot, record } = evidence;
  const subject = subjectName(snapshot.repo, snapshot.issue);
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

/** The one batched write of a reclaim (pure). */
export function reclaimWrite(input: {
  snapshot: SubjectSnapshot;
  previous: ClaimRecord | null;
  record: ClaimRecord;
  config: RepoConfig;
  commenter: { login: string; nodeId: string };
  assign: boolean;
  changes: CheckChange[];
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
  const managed = [config.labels.claimed, config.labels.stale].map((l) => l.toLowerCase());
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
    replyOf({ previous, record, commenter: commenter.login, assign: input.assign, changes }),
  ];
  return write;
}

function replyOf(input: {
  previous: ClaimRecord | null;
  record: ClaimRecord;
  commenter: string;
  assign: boolean;
  changes: CheckChange[];
}): string {
  const { previous, record, commenter, changes } = input;
  const release = record.state !== "human";
  const lines = [
    release
      ? `🔁 @${commenter} released this issue back to the queue (generation ${record.generation}); nobody holds it now.`
      : `🔁 @${commenter} reclaimed this issue (generation ${record.generation})${input.assign ? " and is now assigned" : ""}.`,
  ];
  if (previous && live(previous)) {
    lines.push(`${describe(previous.actor)} lost the claim (generation ${previous.generation}).`);
  } else if (previous) {
    lines.push(`No claim was live; the last one was generation ${previous.generation} (${previous.state}).`);
  }
  const flipped = changes.filter((c) => c.before !== c.after);
  lines.push(
    flipped.length
      ? `Pull request checks that changed: ${flipped.map((c) => `#${c.number} ${c.before ?? "none"} → ${c.after}`).join(", ")}.`
      : "No pull request check changed.",
  );
  return lines.join("\n");
}

/** apply */
export async function handleReclaim(
  event: { id: string; payload: CommentPayload },
  deps: ReclaimDeps,
): Promise<void> {
  const { payload } = event;
  const command = commandOf(payload);
  if (!command || !payload.installation) return;
  const installationId = payload.installation.id;
  const repo = payload.repository.full_name;
  const commentId = payload.comment.id;
  const log = deps.log.child({ delivery: event.id, subject: subjectName(repo, payload.issue.number) });

  if (!(await deps.store.firstDelivery(`issue_comment:${event.id}`, deliveryMemoryMs))) return;
  if (!(await deps.fences.markCommentHandled(installationId, commentId, commandMemoryMs))) {
    log.info({ commentId }, "/reclaim comment already handled");
    return;
  }
  let claimed = false;
  try {
    claimed = await reclaim(command, payload, installationId, deps);
  } catch (error) {
    // Before the store changed, a redelivery may safely try again; after, it must not act twice.
    if (!claimed) await deps.fences.unmarkComment(installationId, commentId);
    log.error({ err: error }, "/reclaim failed");
    throw error;
  }
}

async function reclaim(
  command: ReclaimCommand,
  payload: CommentPayload,
  installationId: number,
  deps: ReclaimDeps,
): Promise<boolean> {
  const { store, assignments, now: clock } = deps;
  const repo = payload.repository.full_name;
  const ref = { installationId, repo, issue: payload.issue.number };
  const commenter = payload.comment.user?.login ?? payload.sender.login;
  const commenterNodeId = payload.comment.user?.node_id ?? payload.sender.node_id;

  await deps.reactions.react({ installationId, repo }, payload.comment.id, "eyes");
  const config = await deps.configs.load(installationId, repo);
  const permission = await deps.identity.permission(installationId, repo, commenter);
  const snapshot = await assignments.status(ref);
  if (!snapshot) return false;
  const key: SubjectKey = { installationId, repoId: snapshot.repoId, issue: snapshot.issue };
  const now = clock();
  const record = await restoredRecord(key, snapshot, deps, now);

  const decision = decideReclaim({
    command,
    commenter,
    permission,
    needed: config.reclaim.permission,
    snapshot,
    record,
  });
  if (decision.kind === "refuse") {
    await assignments.apply(ref, { subjectNodeId: snapshot.nodeId, addComments: [decision.reply] });
    return false;
  }

  const actor: Actor = { kind: "human", login: commenter };
  const { record: next, previous } = await store.humanClaim({
    key,
    repo: snapshot.repo,
    actor,
    now,
    minGeneration: highestGeneration(snapshot),
    release: decision.release,
    appAssigned: decision.assign,
    issueNodeId: snapshot.nodeId,
    assigneeNodeId: commenterNodeId,
    // Who `/reclaim release` unassigns is decided now, so a retry never removes someone assigned later.
    // The previous claim's App-made assignee counts too: its own write may not have landed yet.
    ...(decision.release
      ? {
          releasedAssigneeNodeIds: [
            ...new Set([
              ...snapshot.assignees.map((a) => a.nodeId),
              // Only while that assignment may still stand: a live claim's, or an ended one's unwritten.
              ...(appMadeLogin(record) && record?.assigneeNodeId ? [record.assigneeNodeId] : []),
            ]),
          ],
        }
      : {}),
  });
  // The fence first: the old holder's PRs fail before anything else is announced.
  const changes = await deps.fence.claimChanged(next, previous);
  const applied = await assignments.apply(ref, {
    ...reclaimWrite({
      snapshot,
      previous,
      record: next,
      config,
      commenter: { login: commenter, nodeId: commenterNodeId },
      assign: decision.assign,
      changes,
    }),
    fence: fenceOf(next, config.labels),
  });
  if (applied.claimComment) {
    await store.commitClaim(key, next.generation, {
      commentNodeId: applied.claimComment.nodeId,
      commentId: applied.claimComment.databaseId,
    });
  }
  return true;
}

/** Invariant 7: a live claim the store lost is put back from its comment before it is superseded. */
async function restoredRecord(
  key: SubjectKey,
  snapshot: SubjectSnapshot,
  deps: ReclaimDeps,
  now: number,
): Promise<ClaimRecord | null> {
  const record = await deps.store.get(key);
  if (record) return record;
  const latest = latestMarker(snapshot);
  if (!latest || !markerHolds(latest.marker)) return null;
  const epoch = await deps.store.epoch(key.installationId, now);
  await deps.store.restore(recordFromMarker(key, snapshot, latest, epoch, now), now);
  return deps.store.get(key);
}
