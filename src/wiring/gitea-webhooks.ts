// `POST /api/gitea/webhooks`: a Gitea or Forgejo delivery verified, read into its facts and run through the same handlers as GitHub's.
//
// 1. the raw body (at most `maxGiteaPayloadBytes`) and its HMAC-SHA256 signature, which names the instance, under the secret
//    of the repository it names (or the instance's, for hand-made hooks): anything else → 401, nothing acted on;
// 2. the event and delivery headers, the JSON, the payload's fields (zod) → 400 naming what is wrong;
// 3. an `issues` change fed into the candidate index of a repository it holds; an event nothing acts on → 202 ignored;
// 4. the handler under the shared guard (the App's own deliveries skipped, a delivery id handled once) → 200.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { Histogram } from "prom-client";
import type { RepoConfigSource } from "../config/config-source.js";
import type { MergeFence } from "../fence/merge-fence.js";
import { budgetCommand } from "../handlers/budget.js";
import { claimCommentRepair } from "../handlers/claim-comment-repair.js";
import { issueClosed } from "../handlers/issue-closed.js";
import { needsHumanAnswered } from "../handlers/needs-human-answered.js";
import { pushEvidence } from "../handlers/push-evidence.js";
import { reclaimCommand } from "../handlers/reclaim.js";
import type { CommentPayload } from "../handlers/reclaim-decision.js";
import {
  type GuardOptions,
  runWebhook,
  type WebhookHandler,
  type WebhookPayload,
} from "../handlers/webhook-guard.js";
import { errorResponse } from "../http/error-response.js";
import { payloadTooLarge, readRawBody } from "../http/read-body.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import type { LeaseEventPublisher } from "../lease/lease-events.js";
import type { ClaimEvents } from "../lease/transitions/claim-events.js";
import type { AssignmentProvider, IdentityProvider } from "../providers/assignment-provider.js";
import type { CommentReactions } from "../providers/comment-reactions.js";
import type { FenceStore } from "../providers/fence-store.js";
import type { GiteaBotAccount } from "../providers/gitea/gitea-bot-account.js";
import type { GiteaIssueRead } from "../providers/gitea/gitea-client.js";
import type { GiteaHookSecrets } from "../providers/gitea/gitea-hook-secret.js";
import { type GiteaUserRef, giteaGhostLogin, giteaUserIsPerson } from "../providers/gitea/gitea-person.js";
import {
  type GiteaIssueTouch,
  GiteaPayloadError,
  type GiteaWebhookEvent,
  giteaEventName,
  readGiteaEvent,
  readGiteaIssueTouch,
} from "../providers/gitea/gitea-webhook-events.js";
import { giteaDeliveryId, type HeaderReader } from "../providers/gitea/gitea-webhook-signature.js";
import type { Stores } from "../providers/stores.js";
import { listOf } from "./forge-routing.js";
import {
  commentFromGitea,
  type GiteaReads,
  whileClosed,
  withCommentFromGitea,
} from "./gitea-confirmations.js";
import { DeliveryRepositoryCheck } from "./gitea-delivery-repository.js";
import { runPullRequestFence, runPullRequestProgress, runStatusFence } from "./gitea-pull-requests.js";
import { dispatchListChange } from "./gitea-removals.js";
import { deliveryInstance } from "./gitea-webhook-instance.js";
import { feedGiteaCandidate, type GiteaCandidateFeedDeps } from "./queue-feed.js";

export const giteaWebhookPath = "/api/gitea/webhooks";
/** Gitea caps a push payload's commits; 1 MiB holds any payload the handled events send. */
export const maxGiteaPayloadBytes = 1024 * 1024;

export interface GiteaWebhookDeps {
  /** The instance secret: never logged. */
  secret: string;
  /** Whether deliveries are signed per repository (the App's hooks) or with `secret` itself (hand-made). */
  hookSecrets: GiteaHookSecrets;
  /** The installation record the instance is served under. */
  installationId: number;
  /**
   * With several instances, the instance's number: a delivery id is remembered as `<N>/<id>`, so two
   * instances' deliveries of the same id are both handled (absent: the id as Gitea sends it).
   */
  deliveryScope?: string;
  bot: GiteaBotAccount;
  stores: Stores;
  assignments: AssignmentProvider;
  configs: RepoConfigSource;
  identity: Pick<IdentityProvider, "permission">;
  reactions: CommentReactions;
  events: ClaimEvents;
  /** The App's fence: it writes the `claim-hold` commit status of this instance's PRs. */
  fence: MergeFence;
  fences: FenceStore;
  fleet: FleetLogins;
  leaseEvents?: LeaseEventPublisher;
  /** What a delivery's handler would act on is read from Gitea first (gitea-confirmations.ts). */
  reads: GiteaReads;
  /** `claim_hold_webhook_duration_seconds`: a handled delivery is observed under `giteaDurationEvent`. */
  webhookDuration?: Pick<Histogram<"event">, "startTimer">;
  /**
   * The candidate index `claims/next` picks from: `issues` deliveries keep it current, with the issue
   * as `readIssue` answers it now.
   */
  queue?: GiteaCandidateFeedDeps & {
    readIssue: (owner: string, repo: string, index: number) => Promise<GiteaIssueRead>;
  };
  now: () => number;
  log: Logger;
}

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

/**
 * A Probot `addHandler` handler answering only `giteaWebhookPath`, for every served instance: each
 * delivery is handled with the deps of the instance its signature names (`deliveryInstance`).
 */
export function giteaWebhookHandler(
  deps: GiteaWebhookDeps | readonly [GiteaWebhookDeps, ...GiteaWebhookDeps[]],
) {
  const instances = listOf<GiteaWebhookDeps>(deps);
  const { log } = instances[0] as GiteaWebhookDeps;
  const repositories = new Map(
    instances.map((deps) => [
      deps,
      deps.hookSecrets === "per-repository"
        ? new DeliveryRepositoryCheck(
            (id) => deps.assignments.repositoryName(deps.installationId, id),
            deps.now,
          )
        : null,
    ]),
  );
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if ((req.url ?? "/").split("?")[0] !== giteaWebhookPath) return false;
    let reply: Reply;
    try {
      reply = await intake(req, instances, repositories);
    } catch (error) {
      const { status, body } = errorResponse(error, { requestId: crypto.randomUUID(), log });
      reply = { status, body: { ...body } };
    }
    res.writeHead(reply.status, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(reply.body));
    return true;
  };
}

/** Why a delivery is refused before anything in it is read (docs/reference/gitea-surfaces.md). */
const unverified = {
  missing: "The delivery carries no X-Gitea-Signature (or X-Forgejo-Signature).",
  invalid: "The delivery's signature does not verify with its repository's webhook secret.",
  unnamed: "The delivery names no repository.id, so no per-repository hook secret can verify it.",
} as const;

const invalid = (message: string): Reply => ({ status: 400, body: { error: "invalid_request", message } });

async function intake(
  req: IncomingMessage,
  instances: readonly GiteaWebhookDeps[],
  repositoryChecks: ReadonlyMap<GiteaWebhookDeps, DeliveryRepositoryCheck | null>,
): Promise<Reply> {
  if (req.method !== "POST") return { status: 404, body: { error: "not_found", message: "No such route." } };
  const raw = await readRawBody(req, maxGiteaPayloadBytes);
  if (raw === null) {
    const message = "Gitea deliveries are limited to 1 MiB.";
    return { status: payloadTooLarge.status, body: { error: payloadTooLarge.body.error, message } };
  }
  const header: HeaderReader = (name) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(", ") : value;
  };
  const signature = deliveryInstance(instances, { header, rawBody: raw, url: req.url ?? "/" });
  if (signature.kind !== "chosen")
    return { status: 401, body: { error: "unauthorized", message: unverified[signature.kind] } };
  const deps = signature.instance;
  const repositories = repositoryChecks.get(deps) ?? null;
  const event = giteaEventName(header);
  const sentId = giteaDeliveryId(header);
  const delivery = sentId && deps.deliveryScope ? `${deps.deliveryScope}/${sentId}` : sentId;
  if (!event || !delivery) return invalid("X-Gitea-Event and X-Gitea-Delivery (or Forgejo's) are required.");
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    return invalid("The body is not JSON.");
  }
  let read: GiteaWebhookEvent;
  let touch: ReturnType<typeof readGiteaIssueTouch>;
  try {
    read = readGiteaEvent(event, json);
    touch = deps.queue ? readGiteaIssueTouch(event, json) : null;
  } catch (error) {
    if (error instanceof GiteaPayloadError) return invalid(error.message);
    throw error;
  }
  // The signature vouches for the repository id only: its name must be the id's before anything acts.
  const named = read.kind !== "ignored" ? read.repository : touch?.repository;
  if (repositories && named && !(await repositories.named(named.id, named.fullName))) {
    const message = "The delivery's repository name is not the one of the repository it is signed for.";
    return { status: 401, body: { error: "unauthorized", message } };
  }
  if (read.kind !== "ignored") {
    // As GitHub's: only a delivery some handler acts on is observed, so the label's values stay few.
    const stop = deps.webhookDuration?.startTimer({ event: giteaDurationEvent(read) });
    try {
      await dispatch(read, delivery, deps);
    } finally {
      stop?.();
    }
  }
  // After the lease's handling, which a failed index read must not cost: the next refresh repairs it.
  let fed = false;
  if (touch && deps.queue) {
    try {
      fed = await feedFromGitea(deps.queue, deps.installationId, touch);
    } catch (error) {
      deps.log.warn(
        { err: error, delivery },
        "candidate index not fed from a Gitea delivery; the next refresh repairs it",
      );
    }
  }
  if (read.kind === "ignored" && !fed) return { status: 202, body: { status: "ignored", event: read.event } };
  return { status: 200, body: { status: "processed" } };
}

/**
 * Feeds the index the issue as Gitea answers it now, not as the delivery says: a signed delivery is a
 * hint, not evidence (one webhook secret serves every repository's hook, and a replayed or late
 * delivery names a state that has passed). Nothing when the repository is not the one the index
 * holds under that name, or the number is a pull request's.
 */
async function feedFromGitea(
  queue: NonNullable<GiteaWebhookDeps["queue"]>,
  installationId: number,
  touch: GiteaIssueTouch,
): Promise<boolean> {
  const repo = await queue.store.repoOf(installationId, touch.repository.fullName);
  if (!repo || repo.repoId !== touch.repository.id) return false;
  const [owner = "", name = ""] = touch.repository.fullName.split("/");
  const issue = await queue.readIssue(owner, name, touch.issue);
  if (issue.pull_request || issue.repository.id !== repo.repoId) return false;
  const createdAt = issue.created_at ? Date.parse(issue.created_at) : Number.NaN;
  return feedGiteaCandidate(queue, installationId, {
    ...touch,
    title: issue.title,
    state: issue.state,
    labels: (issue.labels ?? []).map((label) => label.name),
    assignees: (issue.assignees ?? []).map((user) => user.login),
    ...(Number.isFinite(createdAt) ? { createdAt } : {}),
  });
}

/**
 * A handled delivery's `event` label in the webhook-duration histogram: `gitea:` and the GitHub
 * event it is handled as (`gitea:issue_comment.created`, `gitea:pull_request.synchronize`, …), so
 * GitHub's series are unchanged and a Gitea (or Forgejo) delivery is never counted as GitHub's.
 * Bounded: the handled kinds and their actions only.
 */
export function giteaDurationEvent(read: Exclude<GiteaWebhookEvent, { kind: "ignored" }>): string {
  switch (read.kind) {
    case "comment-created":
      return "gitea:issue_comment.created";
    case "comment-changed":
      return `gitea:issue_comment.${read.action}`;
    case "issue-lists-now":
      return `gitea:issues.${read.action}`;
    case "issue-closed":
      return "gitea:issues.closed";
    case "push":
      return "gitea:push";
    case "pull-request":
      return `gitea:pull_request.${read.action === "synchronized" ? "synchronize" : read.action}`;
    case "fence-status":
      return "gitea:status";
  }
}

/**
 * The handlers take GitHub's payload types; they read only the fields built here (installation,
 * repository id and name, issue number, comment, sender), so the Gitea facts are shaped as those.
 * An account `giteaUserIsPerson` says is no person (the App's own, Gitea's Actions and ghost users)
 * is a `Bot` sender, which the guard skips as it skips GitHub's `[bot]` accounts.
 */
async function dispatch(
  read: Exclude<GiteaWebhookEvent, { kind: "ignored" }>,
  delivery: string,
  deps: GiteaWebhookDeps,
) {
  const bot = (await deps.bot.login()).toLowerCase();
  // Who is no person (the App, Gitea's Actions and ghost users, no user) is a Bot, as GitHub's are.
  const user = (account: GiteaUserRef | null) => {
    const login = account?.login ?? giteaGhostLogin;
    return { login, node_id: login, type: giteaUserIsPerson(account, bot) ? "User" : "Bot" };
  };
  const common = {
    installation: { id: deps.installationId },
    repository: { id: read.repository.id, full_name: read.repository.fullName },
    sender: user(read.sender),
  };
  const run = <P extends { sender?: { type?: string; login?: string } | null }, A>(
    name: string,
    handler: WebhookHandler<P, A>,
    payload: unknown,
    options: GuardOptions = {},
  ) =>
    runWebhook(
      handler,
      { id: delivery, name: `gitea:${name}`, payload: payload as P },
      {
        store: deps.stores.deliveries,
        log: deps.log,
        ...options,
      },
    );
  switch (read.kind) {
    case "comment-created": {
      const payload = {
        ...common,
        action: "created",
        issue: { number: read.issue, ...(read.onPullRequest ? { pull_request: {} } : {}) },
        comment: {
          id: read.comment.id,
          body: read.comment.body,
          user: user(read.comment.author),
          ...(read.comment.htmlUrl ? { html_url: read.comment.htmlUrl } : {}),
        },
      };
      // Who wrote it and what it says are Gitea's answer, not the delivery's (one read at most).
      const log = deps.log.child({ deliveryId: delivery, event: "gitea:issue_comment.created" });
      const now = commentFromGitea(deps.reads, {
        fullName: read.repository.fullName,
        issue: read.issue,
        commentId: read.comment.id,
      });
      const confirmed = <P extends CommentPayload | WebhookPayload<"issue_comment.created">, A>(
        handler: WebhookHandler<P, A>,
      ) => withCommentFromGitea(handler, now, user, log);
      // As on GitHub: a comment's first line is one command at most, so one of the first two acts.
      await run("issue_comment.created", confirmed(reclaimCommand(deps)), payload);
      await run("issue_comment.created", confirmed(budgetCommand(deps)), payload);
      // Only tells the holder's live stream: a redelivery tells it again, which costs nothing.
      return run("issue_comment.created", confirmed(needsHumanAnswered(deps)), payload, { dedupe: false });
    }
    case "comment-changed":
      // As on GitHub: the current claim comment, edited or deleted by anyone but the App, is put back.
      // A Gitea comment's node id is its number as text (the writer's `commentIdOf`); the issue is `ref`.
      return run<WebhookPayload<"issue_comment.edited" | "issue_comment.deleted">, unknown>(
        `issue_comment.${read.action}`,
        claimCommentRepair(deps),
        {
          ...common,
          action: read.action,
          issue: { number: read.issue, node_id: "" },
          comment: { id: read.comment.id, node_id: String(read.comment.id), body: read.comment.body },
        },
      );
    case "issue-lists-now":
      return dispatchListChange(read, deps, {
        installationId: deps.installationId,
        isBot: !giteaUserIsPerson(read.sender, bot),
        common,
        user,
        run,
        log: deps.log.child({ deliveryId: delivery, event: `gitea:issues.${read.action}` }),
      });
    case "issue-closed": {
      // A replayed close of an issue reopened since completes nothing: its state is read first.
      const log = deps.log.child({ deliveryId: delivery, event: "gitea:issues.closed" });
      const subject = { fullName: read.repository.fullName, issue: read.issue };
      return run("issues.closed", whileClosed(issueClosed(deps), deps.reads, subject, log), {
        ...common,
        action: "closed",
        issue: { number: read.issue },
      });
    }
    case "push":
      // Pushes made with a bot's token still show the holder is working (as on GitHub).
      return run<WebhookPayload<"push">, unknown>(
        "push",
        pushEvidence(deps),
        { ...common, ref: read.ref, deleted: read.deleted },
        { allowBots: true },
      );
    case "pull-request":
      await runPullRequestProgress(read, deps, run, common, user);
      return runPullRequestFence(read, deps.fence, run, common, user);
    case "fence-status":
      // The App's own statuses are its evaluations: only another writer's is answered.
      if (read.sender.login.toLowerCase() === bot) return;
      return runStatusFence(read, deps, run, common, user);
  }
}
