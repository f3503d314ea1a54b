// `/budget +5` and `/budget 20` on issue_comment.created (docs/reference/github-surfaces.md#budget): a person with the reclaim permission raises a subject's budget limit.
//
// 1. skip bots (the webhook guard), PR comments and comments without the command (no GitHub request);
// 2. dedupe: by delivery id (the guard), then by comment id (a redelivery never raises twice);
// 3. 👀 on receipt; the config, the commenter's permission, the subject, its record and spend read once each;
// 4. decideBudgetCommand (pure, budget-command.ts): refuse with a reply, or raise;
// 5. the subject's limit stored, its budget pause lifted, then ONE write: the over-budget label off
//    and the audit comment.
import type { Logger } from "pino";
import { subjectMaxUsd } from "../budget/decide-budget.js";
import { microsToUsd, usdToMicros } from "../budget/usage.js";
import type { RepoConfigSource } from "../config/config-source.js";
import { type SubjectKey, subjectName } from "../domain/claim.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import { budgetRaisedEvent, type LeaseEventPublisher, publishLeaseEvents } from "../lease/lease-events.js";
import type {
  AssignmentProvider,
  IdentityProvider,
  TransitionWrite,
} from "../providers/assignment-provider.js";
import type { CommentReactions } from "../providers/comment-reactions.js";
import type { FenceStore } from "../providers/fence-store.js";
import type { Stores } from "../providers/stores.js";
import {
  type BudgetCommand,
  budgetRaisedBody,
  decideBudgetCommand,
  parseBudgetCommand,
} from "./budget-decision.js";
import { type CommandProgress, oncePerComment } from "./once-per-comment.js";
import type { CommentPayload } from "./reclaim-decision.js";
import type { WebhookHandler } from "./webhook-guard.js";

export interface BudgetCommandDeps {
  stores: Pick<Stores, "claims" | "spend">;
  fences: Pick<FenceStore, "markCommentHandled" | "unmarkComment">;
  fleet: FleetLogins;
  assignments: AssignmentProvider;
  identity: Pick<IdentityProvider, "permission">;
  configs: RepoConfigSource;
  reactions: CommentReactions;
  /** Where the holder's live stream hears of the raise; absent: nowhere. */
  leaseEvents?: LeaseEventPublisher;
  now: () => number;
}

interface BudgetAction {
  command: BudgetCommand;
  installationId: number;
  payload: CommentPayload;
}

/** The `/budget` webhook handler: decide parses the comment (no I/O); apply dedupes by comment id and raises. */
export function budgetCommand(deps: BudgetCommandDeps): WebhookHandler<CommentPayload, BudgetAction> {
  return {
    decide(payload) {
      // Bot senders never reach here (the webhook guard); the comment's own author is checked as well.
      if (payload.comment.user?.type === "Bot" || payload.issue.pull_request || !payload.installation) {
        return null;
      }
      const command = parseBudgetCommand(payload.comment.body);
      return command ? { command, installationId: payload.installation.id, payload } : null;
    },
    apply: (action, log) => applyBudget(action, deps, log),
  };
}

function applyBudget(action: BudgetAction, deps: BudgetCommandDeps, deliveryLog: Logger): Promise<void> {
  const { installationId, payload } = action;
  return oncePerComment(
    deps.fences,
    { name: "/budget", installationId, payload },
    deliveryLog,
    (progress, log) => raiseBudget(action, deps, progress, log),
  );
}

async function raiseBudget(
  { command, installationId, payload }: BudgetAction,
  deps: BudgetCommandDeps,
  progress: CommandProgress,
  log: Logger,
): Promise<void> {
  const { stores, assignments } = deps;
  const repo = payload.repository.full_name;
  const ref = { installationId, repo, issue: payload.issue.number };
  const commenter = payload.comment.user?.login ?? payload.sender.login;

  await deps.reactions.react({ installationId, repo }, payload.comment.id, "eyes");
  const config = await deps.configs.load(installationId, repo);
  const permission = await deps.identity.permission(installationId, repo, commenter);
  const snapshot = await assignments.status(ref);
  if (!snapshot) return;
  const key: SubjectKey = { installationId, repoId: snapshot.repoId, issue: snapshot.issue };
  const commenterIsFleet = await deps.fleet.isFleet(
    installationId,
    { login: commenter, bot: (payload.comment.user?.type ?? payload.sender.type) === "Bot" },
    config,
    snapshot.claimComments,
    // Another replica may have learned the login a moment ago: a person's command asks the store.
    { fresh: true },
  );
  const record = await stores.claims.get(key);
  const [spentMicros = 0] = await stores.spend.spendOf([key]);
  const raised = await stores.spend.budgetLimitOf(key);
  const classMaxUsd = record ? config.budgets[record.taskClass].maxUsd : null;
  const decision = decideBudgetCommand({
    command,
    commenter,
    commenterIsFleet,
    permission,
    needed: config.reclaim.permission,
    subject: subjectName(snapshot.repo, snapshot.issue),
    spentMicros,
    limitUsd: subjectMaxUsd(classMaxUsd, raised === null ? null : microsToUsd(raised)),
  });
  if (decision.kind === "refuse") {
    await assignments.apply(ref, { subjectNodeId: snapshot.nodeId, addComments: [decision.reply] });
    return;
  }
  await stores.spend.setBudgetLimit(key, usdToMicros(decision.toUsd));
  progress.storeChanged = true;
  const resumed = await stores.spend.clearBudgetPaused(key);
  const overBudget = config.labels.overBudget.toLowerCase();
  const write: TransitionWrite = {
    subjectNodeId: snapshot.nodeId,
    addComments: [
      budgetRaisedBody({
        commenter,
        fromUsd: decision.fromUsd,
        toUsd: decision.toUsd,
        spentMicros,
        resumed,
      }),
    ],
  };
  const present = snapshot.labels.filter((label) => label.toLowerCase() === overBudget);
  if (present.length) write.removeLabels = present;
  await assignments.apply(ref, write);
  if (record?.state === "active" && record.tokenDigest) {
    await publishLeaseEvents(deps.leaseEvents, log, [
      budgetRaisedEvent(record, {
        by: commenter,
        fromUsd: decision.fromUsd,
        toUsd: decision.toUsd,
        resumed,
        at: deps.now(),
      }),
    ]);
  }
}
