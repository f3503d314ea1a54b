// The App's own Gitea webhooks: an ensure pass at start and every hour, as a scheduled job (one replica at a time).
import type { Logger } from "pino";
import type { GiteaConfig } from "../config/gitea-config.js";
import type { JobRegistry } from "../janitor/job-registry.js";
import { ensureGiteaWebhooks } from "../providers/gitea/ensure-gitea-webhooks.js";
import type { GiteaClient } from "../providers/gitea/gitea-client.js";
import type { GiteaHookSecrets } from "../providers/gitea/gitea-hook-secret.js";
import { giteaInstanceQuery } from "./gitea-webhook-instance.js";
import { giteaWebhookPath } from "./gitea-webhooks.js";

export const giteaWebhookJob = "gitea-webhooks";

/**
 * The ensure job of an instance: `gitea-webhooks` when the App serves one, `gitea-webhooks-<N>` (N
 * its instance number) for each of several, so each instance's pass runs, fails and reports apart.
 */
export function giteaWebhookJobOf(config: GiteaConfig, several: boolean): string {
  return several ? `${giteaWebhookJob}-${config.installationId}` : giteaWebhookJob;
}
/**
 * How an instance's deliveries are signed: per repository when the App makes the hooks; with the
 * instance secret itself when hooks are made by hand (`GITEA_MANAGE_WEBHOOKS=0`), or when the App
 * cannot make them (no `CLAIM_HOLD_PUBLIC_URL`) and the operator gave the secret, the setup of hooks
 * made by hand before the App made its own (docs/reference/gitea-surfaces.md#the-apps-own-webhooks).
 */
export function giteaHookSecretsOf(
  config: Pick<GiteaConfig, "manageWebhooks" | "webhookSecretDerived">,
  publicUrl: string | undefined,
): GiteaHookSecrets {
  if (config.manageWebhooks === false) return "instance";
  return !publicUrl && config.webhookSecretDerived === false ? "instance" : "per-repository";
}

/** Hooks rarely drift: a new repository or a rotated token waits at most this long. */
export const giteaWebhookIntervalMs = 60 * 60 * 1000;

/**
 * Registers the ensure job and answers `start` (its first pass, at once), or null when the App makes
 * no hooks: `GITEA_MANAGE_WEBHOOKS=0`, or no `CLAIM_HOLD_PUBLIC_URL` to point them at (a warning
 * naming it when the secret is derived: then no hook made by hand can carry it).
 */
export function registerGiteaWebhookJob(
  jobs: JobRegistry,
  deps: {
    config: GiteaConfig;
    client: GiteaClient;
    publicUrl: string | undefined;
    /** The App serves several instances: each hook's URL names its instance (`?instance=N`). */
    several?: boolean;
    disabledJobs?: string[];
    log: Logger;
  },
): { start: () => void } | null {
  const { config, client, log } = deps;
  if (config.manageWebhooks === false) return null;
  if (!deps.publicUrl) {
    const message =
      "Gitea webhooks are not registered: CLAIM_HOLD_PUBLIC_URL is not set (set it, or make the hooks by hand with GITEA_MANAGE_WEBHOOKS=0 and GITEA_WEBHOOK_SECRET)";
    // With a derived secret only hooks an earlier pass made can reach the App; with a given one,
    // hand-made hooks signed with it do (`giteaHookSecretsOf`).
    if (config.webhookSecretDerived) log.warn(message);
    else log.info(message);
    return null;
  }
  const several = deps.several === true;
  const instanceQuery = several ? `?${giteaInstanceQuery}=${config.installationId}` : "";
  const want = {
    endpoint: `${deps.publicUrl.replace(/\/+$/, "")}${giteaWebhookPath}${instanceQuery}`,
    instanceSecret: config.webhookSecret,
  };
  const name = giteaWebhookJobOf(config, several);
  const forge = { forge: "gitea", ...(several ? { instance: config.installationId } : {}) };
  jobs.register({
    name,
    intervalMs: giteaWebhookIntervalMs,
    run: async (signal) => {
      const report = await ensureGiteaWebhooks({ client, log }, want, signal);
      log.info(
        { ...report, ...forge },
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
      const disabled = deps.disabledJobs ?? [];
      if (!disabled.includes(name) && !disabled.includes(giteaWebhookJob)) void jobs.tick(name);
    },
  };
}
