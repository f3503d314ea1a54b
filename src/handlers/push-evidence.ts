// push: a push to a claim's branch is evidence of activity (docs/reference/github-surfaces.md#what-the-app-does-on-github-events), recorded with no GitHub call.
import type { Logger } from "pino";
import type { ClaimRecord } from "../domain/claim.js";
import type { NeedsHumanShower } from "../lease/ports.js";
import type { SyncDeps } from "./sync-deps.js";
import type { WebhookHandler, WebhookPayload } from "./webhook-guard.js";

type PushPayload = WebhookPayload<"push">;

/** The issue number in a branch following `agent/<sessionId>/<issue>-<slug>` (whatever the prefix), or null. */
export function issueOfBranch(branch: string): number | null {
  const last = branch.split("/").at(-1) ?? "";
  const match = /^(\d{1,9})(?:-|$)/.exec(last);
  return match ? Number(match[1]) : null;
}

/** What the progress handlers are given: the needs-human show takes the App's ask on a stall off. */
type ProgressDeps = SyncDeps & { needsHuman?: NeedsHumanShower };

/**
 * Notes the progress; when it withdrew the App's ask for a person on the stall's behalf, the label
 * comes off (one GitHub write, only then), unless the holder asks itself.
 */
async function noteProgress(deps: ProgressDeps, record: ClaimRecord, log: Logger): Promise<void> {
  const { stallAskWithdrawn } = await deps.stores.claims.recordPush(record, record.generation, deps.now());
  if (!stallAskWithdrawn || !deps.needsHuman) return;
  const config = await deps.configs.load(record.installationId, record.repo);
  await deps.needsHuman.settle({ ...record, stallAsk: false }, config);
  log.info({ issue: record.issue }, "progress withdrew the ask for a person on the stall's behalf");
}

export function pushEvidence(deps: ProgressDeps): WebhookHandler<PushPayload, ClaimRecord> {
  return {
    async decide(payload) {
      if (!payload.installation || payload.deleted || !payload.ref.startsWith("refs/heads/")) return null;
      const branch = payload.ref.slice("refs/heads/".length);
      const issue = issueOfBranch(branch);
      if (issue === null) return null;
      const key = { installationId: payload.installation.id, repoId: payload.repository.id, issue };
      const record = await deps.stores.claims.get(key);
      if (record?.state !== "active" || record.branch !== branch) return null;
      return record;
    },
    async apply(record, log: Logger) {
      await noteProgress(deps, record, log);
      log.debug({ issue: record.issue }, "push recorded as claim activity");
    },
  };
}

export const pullRequestProgressEvents = [
  "pull_request.opened",
  "pull_request.synchronize",
  "pull_request.reopened",
] as const;
type PullRequestProgressPayload = WebhookPayload<(typeof pullRequestProgressEvents)[number]>;

/**
 * pull_request opened, updated or reopened from a claim's branch by its holder: progress
 * (docs/reference/http-api.md#stalled), noted as a push on that branch — 0 GitHub requests.
 */
export function pullRequestProgress(
  deps: ProgressDeps,
): WebhookHandler<PullRequestProgressPayload, ClaimRecord> {
  return {
    async decide(payload) {
      const { pull_request: pr } = payload;
      if (!payload.installation || pr.head.repo?.id !== payload.repository.id) return null;
      const issue = issueOfBranch(pr.head.ref);
      if (issue === null) return null;
      const key = { installationId: payload.installation.id, repoId: payload.repository.id, issue };
      const record = await deps.stores.claims.get(key);
      if (record?.state !== "active" || record.branch !== pr.head.ref) return null;
      if (pr.user?.login.toLowerCase() !== record.actor.login.toLowerCase()) return null;
      return record;
    },
    async apply(record, log: Logger) {
      await noteProgress(deps, record, log);
      log.debug({ issue: record.issue }, "pull request recorded as claim progress");
    },
  };
}
