// push: a push to a claim's branch is evidence of activity (docs/reference/github-surfaces.md#what-the-app-does-on-github-events), recorded with no GitHub call.
import type { Logger } from "pino";
import type { SubjectKey } from "../domain/claim.js";
import type { SyncDeps } from "./sync-deps.js";
import type { WebhookHandler, WebhookPayload } from "./webhook-guard.js";

type PushPayload = WebhookPayload<"push">;

/** The issue number in a branch following `agent/<sessionId>/<issue>-<slug>` (whatever the prefix), or null. */
export function issueOfBranch(branch: string): number | null {
  const last = branch.split("/").at(-1) ?? "";
  const match = /^(\d{1,9})(?:-|$)/.exec(last);
  return match ? Number(match[1]) : null;
}

export function pushEvidence(
  deps: SyncDeps,
): WebhookHandler<PushPayload, { key: SubjectKey; generation: number }> {
  return {
    async decide(payload) {
      if (!payload.installation || payload.deleted || !payload.ref.startsWith("refs/heads/")) return null;
      const branch = payload.ref.slice("refs/heads/".length);
      const issue = issueOfBranch(branch);
      if (issue === null) return null;
      const key = { installationId: payload.installation.id, repoId: payload.repository.id, issue };
      const record = await deps.stores.claims.get(key);
      if (record?.state !== "active" || record.branch !== branch) return null;
      return { key, generation: record.generation };
    },
    async apply({ key, generation }, log: Logger) {
      await deps.stores.claims.recordPush(key, generation, deps.now());
      log.debug({ issue: key.issue }, "push recorded as claim activity");
    },
  };
}
