// The App's own Gitea webhooks: an ensure pass at start and every hour, as a scheduled job (one replica at a time).
import type { Logger } from "pino";
import type { GiteaConfig } from "../config/gitea-config.js";
import type { JobRegistry } from "../janitor/job-registry.js";
import { ensureGiteaWebhooks } from "../providers/gitea/ensure-gitea-webhooks.js";
import type { GiteaClient } from "../providers/gitea/gitea-client.js";
import { giteaWebhookPath } from "./gitea-webhooks.js";

export const giteaWebhookJob = "gitea-webhooks";
/** Hooks rarely drift: a new repository or a rotated token waits at most this long. */
export const giteaWebhookIntervalMs = 60 * 60 * 1000;

/**
 * Registers the ensure job and answers `start` (its first pass, at once), or null when the App makes
 * no hooks: `GITEA_MANAGE_WEBHOOKS=0`, or no `CLAIM_HOLD_PUBLIC_URL` to point them at (a warning
 * naming it: the intake still checks each delivery under its repository's own secret, so a hook made
 * by hand with the instance secret is refused until `GITEA_MANAGE_WEBHOOKS=0`).
 */
export function registerGiteaWebhookJob(
  jobs: JobRegistry,
  deps: {
    config: GiteaConfig;
    client: GiteaClient;
    publicUrl: string | undefined;
    disabledJobs?: string[];
    log: Logger;
  },
): { start: () => void } | null {
  const { config, client, log } = deps;
  if (config.manageWebhooks === false) return null;
  if (!deps.publicUrl) {
    // Only hooks an earlier pass made can reach the App: hand-made ones need GITEA_MANAGE_WEBHOOKS=0.
    log.warn(
      "Gitea webhooks are not registered: CLAIM_HOLD_PUBLIC_URL is not set (set it, or make the hooks by hand with GITEA_MANAGE_WEBHOOKS=0 and GITEA_WEBHOOK_SECRET)",
    );
    return null;
  }
  const want = {
    endpoint: `${deps.publicUrl.replace(/\/+$/, "")}${giteaWebhookPath}`,
    instanceSecret: config.webhookSecret,
  };
  jobs.register({
    name: giteaWebhookJob,
    intervalMs: giteaWebhookIntervalMs,
    run: async (signal) => {
      const report = await ensureGiteaWebhooks({ client, log }, want, signal);
      log.info(
        { ...report, forge: "gitea" },
        report.notAdmin > 0
          ? `Gitea webhooks ensured; ${report.notAdmin} repositories skipped (the bot account is not their admin)`
          : "Gitea webhooks ensured",
      );
      // A repository that failed is retried at the next pass; the job's status shows the pass failed.
      if (report.failed > 0) throw new Error(`${report.failed} repositories' webhooks not ensured`);
    },
  });
  return {
    start: () => {
      if (!deps.disabledJobs?.includes(giteaWebhookJob)) void jobs.tick(giteaWebhookJob);
    },
  };
}
