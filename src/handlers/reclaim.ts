// `/reclaim` on issue_comment.created (docs/reference/github-surfaces.md#reclaim): a human with permission takes a subject back from whoever claims it.
//
// 1. skip bots (the webhook guard), edits, PR comments and comments without the command (no GitHub request);
// 2. dedupe: by delivery id (the guard), then by comment id (a redelivery under a new id changes nothing twice);
// 3. 👀 on receipt; permission and the subject's state are read once each;
// 4. decideReclaim (pure, reclaim-decision.ts): refuse politely, or reclaim;
// 5. stores.claims.humanClaim (new generation), re-run the linked PR checks, then ONE batched mutation:
//    unassign, unlabel, assign, old claim comment → superseded/revoked, new claim comment, reply;
// 6. a mutation GitHub refused is read back once: landed → committed; provably absent → the store
//    is rolled back (invariants 3, 7, 10); unknown (the read failed too) → left `sync: pending`.
import type { Logger } from "pino";
import type { RepoConfigSource } from "../config/config-source.js";
import { type Actor, type ClaimRecord, type SubjectKey, subjectName } from "../domain/claim.js";
import type { MergeFence } from "../fence/merge-fence.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import { type LeaseEventPublisher, publishLeaseEvents, supersededEvent } from "../lease/lease-events.js";
import type { ReclaimCommand } from "../lease/reclaim-command.js";
import {
  highestGeneration,
  latestMarker,
  markerHolds,
  recordFromMarker,
} from "../lease/recovery/restore-from-comments.js";
import { applyAndCommit, rollBack } from "../lease/transitions/commit-transition.js";
import { fenceOf } from "../lease/transitions/fenced-writes.js";
import type {
  AssignmentProvider,
  IdentityProvider,
  SubjectSnapshot,
} from "../providers/assignment-provider.js";
import type { CommentReactions } from "../providers/comment-reactions.js";
import type { FenceStore } from "../providers/fence-store.js";
import { definitelyRefused } from "../providers/github/github-errors.js";
import type { Stores } from "../providers/stores.js";
import { type CommandProgress, oncePerComment } from "./once-per-comment.js";
import {
  type CommentPayload,
  commandOf,
  decideReclaim,
  reclaimWrite,
  releasedAssignees,
} from "./reclaim-decision.js";
import type { WebhookHandler } from "./webhook-guard.js";

export interface ReclaimDeps {
  stores: Pick<Stores, "claims" | "index">;
  fences: FenceStore;
  fence: MergeFence;
  fleet: FleetLogins;
  assignments: AssignmentProvider;
  identity: Pick<IdentityProvider, "permission">;
  configs: RepoConfigSource;
  reactions: CommentReactions;
  now: () => number;
  /** Where the superseded agent's live stream hears of it; absent: nowhere. */
  leaseEvents?: LeaseEventPublisher;
}

/** The `/reclaim` webhook handler: decide is `commandOf` (no I/O); apply dedupes by comment id and reclaims. */
export function reclaimCommand(
  deps: ReclaimDeps,
): WebhookHandler<
  CommentPayload,
  { command: ReclaimCommand; installationId: number; payload: CommentPayload }
> {
  return {
    decide(payload) {
      const command = commandOf(payload);
      return command && payload.installation
        ? { command, installationId: payload.installation.id, payload }
        : null;
    },
    apply: (action, log) => applyReclaim(action, deps, log),
  };
}

function applyReclaim(
  action: { command: ReclaimCommand; installationId: number; payload: CommentPayload },
  deps: ReclaimDeps,
  deliveryLog: Logger,
): Promise<void> {
  const { command, installationId, payload } = action;
  // A failure after the store changed is finished by reconcile (a human claim left `sync: pending`).
  return oncePerComment(
    deps.fences,
    { name: "/reclaim", installationId, payload },
    deliveryLog,
    (progress, log) => reclaim(command, payload, installationId, deps, progress, log),
  );
}

async function reclaim(
  command: ReclaimCommand,
  payload: CommentPayload,
  installationId: number,
  deps: ReclaimDeps,
  progress: CommandProgress,
  log: Logger,
): Promise<void> {
  const { stores, assignments, now: clock } = deps;
  const repo = payload.repository.full_name;
  const ref = { installationId, repo, issue: payload.issue.number };
  const commenter = payload.comment.user?.login ?? payload.sender.login;
  const commenterNodeId = payload.comment.user?.node_id ?? payload.sender.node_id;

  await deps.reactions.react({ installationId, repo }, payload.comment.id, "eyes");
  const config = await deps.configs.load(installationId, repo);
  const permission = await deps.identity.permission(installationId, repo, commenter);
  const snapshot = await assignments.status(ref);
  if (!snapshot) return;
  const key: SubjectKey = { installationId, repoId: snapshot.repoId, issue: snapshot.issue };
  const now = clock();
  const record = await restoredRecord(key, snapshot, deps, now);

  const commenterIsFleet = await deps.fleet.isFleet(
    installationId,
    { login: commenter, bot: (payload.comment.user?.type ?? payload.sender.type) === "Bot" },
    config,
    snapshot.claimComments,
    // Another replica may have learned the login a moment ago: a person's command asks the store.
    { fresh: true },
  );
  const decision = decideReclaim({
    command,
    commenter,
    commenterIsFleet,
    permission,
    needed: config.reclaim.permission,
    snapshot,
    record,
  });
  if (decision.kind === "refuse") {
    await assignments.apply(ref, { subjectNodeId: snapshot.nodeId, addComments: [decision.reply] });
    return;
  }

  const actor: Actor = { kind: "human", login: commenter };
  const { record: next, previous } = await stores.claims.humanClaim({
    key,
    repo: snapshot.repo,
    actor,
    now,
    minGeneration: highestGeneration(snapshot),
    release: decision.release,
    appAssigned: decision.assign,
    issueNodeId: snapshot.nodeId,
    assigneeNodeId: commenterNodeId,
    ...(snapshot.title ? { title: snapshot.title } : {}),
    // Who `/reclaim release` unassigns is decided now, so a retry never removes someone assigned later.
    ...(decision.release ? { releasedAssigneeNodeIds: releasedAssignees(snapshot, record) } : {}),
  });
  progress.storeChanged = true;
  // The fence first: the old holder's PRs fail before anything else is announced.
  const changes = await deps.fence.claimChanged(next, previous);
  const write = {
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
  };
  try {
    await applyAndCommit(deps, ref, key, next.generation, write);
  } catch (error) {
    const landed = await landedHumanClaim(deps, ref, next);
    // A write GitHub did not definitely refuse (the App stopped waiting, GitHub answered 5xx, the
    // connection dropped) may still land after this read: absent now proves nothing, so the human
    // claim stays in the store, pending, for reconcile to finish.
    if (landed === "unknown" || (landed === null && !definitelyRefused(error))) throw error;
    if (landed) {
      await stores.claims.commitClaim(key, next.generation, {
        commentNodeId: landed.nodeId,
        commentId: landed.databaseId,
      });
      log.warn({ err: error }, "/reclaim kept: GitHub applied it although the answer was lost");
      await tellSuperseded(deps, log, previous, next);
      return;
    }
    // Nothing of the human claim reached GitHub: kept only in the store, a store loss would drop
    // it and revive the superseded lease from its comment. Undone, the old holder's lease stands
    // as GitHub shows it, and a redelivery of the comment may try again.
    await rollBack(
      { ...deps, log },
      ref,
      key,
      { record: next, previous, write, now: clock() },
      config.labels,
    );
    progress.storeChanged = false;
    await deps.fence.recheckSubject(installationId, key).catch((recheck: unknown) => {
      log.error({ err: recheck }, "re-running the checks of linked pull requests failed");
    });
    throw error;
  }
  await tellSuperseded(deps, log, previous, next);
}

/** The superseded agent's live stream hears of the person's claim at once (best-effort). */
function tellSuperseded(
  deps: Pick<ReclaimDeps, "leaseEvents">,
  log: Logger,
  previous: ClaimRecord | null,
  next: ClaimRecord,
): Promise<void> {
  if (previous?.state !== "active" || !previous.tokenDigest) return Promise.resolve();
  return publishLeaseEvents(deps.leaseEvents, log, [supersededEvent(previous, next)]);
}

/**
 * After a refused write, one read: the human claim's comment (this generation, this human) when
 * GitHub shows it, null when GitHub shows it absent, "unknown" when the read fails as well.
 */
async function landedHumanClaim(
  deps: Pick<ReclaimDeps, "assignments">,
  ref: { installationId: number; repo: string; issue: number },
  record: ClaimRecord,
): Promise<{ nodeId: string; databaseId: number } | null | "unknown"> {
  let snapshot: SubjectSnapshot | null;
  try {
    snapshot = await deps.assignments.status(ref);
  } catch {
    return "unknown";
  }
  if (!snapshot) return "unknown";
  const subject = subjectName(snapshot.repo, snapshot.issue);
  const comment = snapshot.claimComments.find(
    (c) =>
      c.marker.subject === subject &&
      c.marker.generation === record.generation &&
      c.marker.actor.kind === "human" &&
      c.marker.actor.login.toLowerCase() === record.actor.login.toLowerCase(),
  );
  return comment ? { nodeId: comment.nodeId, databaseId: comment.databaseId } : null;
}

/** Invariant 7: a live claim the store lost is put back from its comment before it is superseded. */
async function restoredRecord(
  key: SubjectKey,
  snapshot: SubjectSnapshot,
  deps: ReclaimDeps,
  now: number,
): Promise<ClaimRecord | null> {
  const record = await deps.stores.claims.get(key);
  if (record) return record;
  const latest = latestMarker(snapshot);
  if (!latest || !markerHolds(latest.marker)) return null;
  const epoch = await deps.stores.claims.epoch(key.installationId, now);
  await deps.stores.claims.restore(recordFromMarker(key, snapshot, latest, epoch, now), now);
  return deps.stores.claims.get(key);
}
