// The Gitea (or Forgejo) instance a deployment serves, from the environment: all of it or none of it.
import { type Env, EnvError } from "./env.js";

export interface GiteaConfig {
  /** The instance's root URL; the REST API is under `/api/v1`. */
  url: string;
  /** The App's bot account token: never logged. */
  token: string;
  /** The webhooks' HMAC-SHA256 secret: never logged. */
  webhookSecret: string;
  /**
   * The instance's number among the Gitea installation records (`GITEA_INSTALLATION_ID`, default 1):
   * its claims are kept under the record `giteaInstallationRecordId(installationId)` (domain/forge.ts),
   * never a GitHub installation's.
   */
  installationId: number;
  /** The least time between two writes (`serialWriteLimiter`). */
  writeSpacingMs: number;
}

export const defaultGiteaInstallationId = 1;
export const defaultGiteaWriteSpacingMs = 250;

const required = ["GITEA_URL", "GITEA_TOKEN", "GITEA_WEBHOOK_SECRET"] as const;

/**
 * Null when no Gitea variable is set (GitHub only). Half a configuration stops start-up naming the
 * first missing variable: a Gitea that silently gets no webhook route is worse than no start.
 */
export function giteaConfigOf(env: Env): GiteaConfig | null {
  const given = required.filter((name) => env[name] !== undefined);
  const extras = env.GITEA_INSTALLATION_ID !== undefined || env.GITEA_WRITE_SPACING_MS !== undefined;
  if (given.length === 0 && !extras) return null;
  const { GITEA_URL: url, GITEA_TOKEN: token, GITEA_WEBHOOK_SECRET: webhookSecret } = env;
  if (!url || !token || !webhookSecret) {
    const missing = required.find((name) => env[name] === undefined);
    throw new EnvError(`invalid environment variable ${missing}: required when serving a Gitea instance`);
  }
  return {
    url,
    token,
    webhookSecret,
    installationId: env.GITEA_INSTALLATION_ID ?? defaultGiteaInstallationId,
    writeSpacingMs: env.GITEA_WRITE_SPACING_MS ?? defaultGiteaWriteSpacingMs,
  };
}
