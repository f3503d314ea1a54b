// `/reclaim` on issue_comment.created (docs/reference/github-surfaces.md#reclaim): a human with permission takes a subject back from whoever claims it.
//
// 1. skip bots (the webhook guard), edits, PR comments and comments without the command (no GitHub request);
// 2. dedupe: by delivery id (the guard), then by comment id (a redelivery under a new id changes nothing twice);
// 3. 👀 on receipt; permission and the subject's state are read once each;
// 4. decideReclaim (pure, reclaim-decision.ts): refuse politely, or reclaim;
// 5. takeBack (take-back.ts, shared with the dashboard's operator actions): the human claim, the
//    fence, ONE batched mutation, and a refused write read back or rolled back.
import type { Logger } from "pino";
import type { RepoConfigSource } from "../config/config-source.js";
import type { SubjectKey } from "../domain/claim.js";
import { countsAsPerson } from "../domain/trust.js";
import type { MergeFence } from "../fence/merge-fence.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import type { LeaseEventPublisher } from "../lease/lease-events.js";
import type { ReclaimCommand } from "../lease/reclaim-command.js";
import type { AssignmentProvider, IdentityProvider } from "../providers/assignment-provider.js";
import type { CommentReactions } from "../providers/comment-reactions.js";
import type { FenceStore } from "../providers/fence-store.js";
import type { Stores } from "../providers/stores.js";
import { type CommandProgress, oncePerComment } from "./once-per-comment.js";
import { type CommentPayload, commandOf, decideReclaim } from "./reclaim-decision.js";
import { restoredRecord, takeBack } from "./take-back.js";
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
  const { assignments, now: clock } = deps;
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
  const record = await restoredRecord(key, snapshot, deps, clock());

  // Another replica may have learned the login a moment ago: `actorKind` asks the store afresh.
  const commenterKind = await deps.fleet.actorKind(
    installationId,
    {
      login: commenter,
      bot: (payload.comment.user?.type ?? payload.sender.type) === "Bot",
      ownApp: false,
    },
    config,
    snapshot.claimComments,
  );
  const commenterIsFleet = !countsAsPerson(commenterKind, "reclaim");
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

  await takeBack(
    deps,
    {
      ref,
      key,
      snapshot,
      record,
      config,
      actor: { kind: "human", login: commenter },
      actorNodeId: commenterNodeId,
      release: decision.release,
      assign: decision.assign,
      progress,
    },
    log,
  );
}
