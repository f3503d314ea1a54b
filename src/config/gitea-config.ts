// The Gitea (or Forgejo) instance a deployment serves, from the environment: all of it or none of it.
import { createHmac } from "node:crypto";
import { type Env, EnvError } from "./env.js";

export interface GiteaConfig {
  /** The instance's root URL; the REST API is under `/api/v1`. */
  url: string;
  /** The App's bot account token: never logged. */
  token: string;
  /**
   * The webhooks' HMAC-SHA256 secret: never logged. `GITEA_WEBHOOK_SECRET`, or without it
   * `deriveGiteaWebhookSecret(token)`.
   */
  webhookSecret: string;
  /** True when `webhookSecret` was derived: no hand-made hook can carry it, only the App's own. */
  webhookSecretDerived?: boolean;
  /**
   * Whether the App registers and keeps its own hook on each repository the bot account administers
   * (`GITEA_MANAGE_WEBHOOKS`, default true; it needs `CLAIM_HOLD_PUBLIC_URL`). False: hooks made by hand.
   */
  manageWebhooks?: boolean;
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

const required = ["GITEA_URL", "GITEA_TOKEN"] as const;
const optional = [
  "GITEA_WEBHOOK_SECRET",
  "GITEA_MANAGE_WEBHOOKS",
  "GITEA_INSTALLATION_ID",
  "GITEA_WRITE_SPACING_MS",
] as const;

/** What the derived secret is an HMAC of: a new label would re-key every hook the App made. */
const derivedSecretLabel = "claim-hold gitea webhook secret v1";

/**
 * The webhook secret when `GITEA_WEBHOOK_SECRET` is unset: HMAC-SHA256 keyed by the bot's token, so
 * every replica agrees without a third variable. A new token gives a new secret; the App's hooks
 * carry its fingerprint, so the next ensure pass re-writes them (providers/gitea/plan-gitea-webhook.ts).
 */
export function deriveGiteaWebhookSecret(token: string): string {
  return createHmac("sha256", token).update(derivedSecretLabel).digest("hex");
}

/**
 * Null when no Gitea variable is set (GitHub only). Half a configuration stops start-up naming the
 * first missing variable: a Gitea that silently gets no webhook route is worse than no start.
 */
export function giteaConfigOf(env: Env): GiteaConfig | null {
  const given = [...required, ...optional].filter((name) => env[name] !== undefined);
  if (given.length === 0) return null;
  const { GITEA_URL: url, GITEA_TOKEN: token } = env;
  if (!url || !token) {
    const missing = required.find((name) => env[name] === undefined);
    throw new EnvError(`invalid environment variable ${missing}: required when serving a Gitea instance`);
  }
  const manageWebhooks = env.GITEA_MANAGE_WEBHOOKS !== "0";
  if (!manageWebhooks && !env.GITEA_WEBHOOK_SECRET) {
    // Hand-made hooks need a secret the operator knows: the derived one is in no variable. Gitea shows
    // a hook's secret to its repository's admins, so this one is readable by each of them
    // (docs/security.md); the App's own hooks each get a secret of their own instead.
    throw new EnvError(
      "invalid environment variable GITEA_WEBHOOK_SECRET: required when GITEA_MANAGE_WEBHOOKS=0",
    );
  }
  return {
    url,
    token,
    webhookSecret: env.GITEA_WEBHOOK_SECRET ?? deriveGiteaWebhookSecret(token),
    webhookSecretDerived: env.GITEA_WEBHOOK_SECRET === undefined,
    manageWebhooks,
    installationId: env.GITEA_INSTALLATION_ID ?? defaultGiteaInstallationId,
    writeSpacingMs: env.GITEA_WRITE_SPACING_MS ?? defaultGiteaWriteSpacingMs,
  };
}
