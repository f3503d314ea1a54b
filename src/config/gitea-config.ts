// The Gitea (or Forgejo) instances a deployment serves, from the environment: each all of it or none of it.
import { createHmac } from "node:crypto";
import { giteaInstanceName } from "../domain/forge.js";
import { Env, EnvError } from "./env.js";

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

/** The variables of a further instance: `GITEA_URL_<N>` and the rest, N its instance number (from 2 up). */
const numberedNames = ["URL", "TOKEN", "WEBHOOK_SECRET", "MANAGE_WEBHOOKS", "WRITE_SPACING_MS"] as const;
const numberedVariable =
  /^GITEA_(URL|TOKEN|WEBHOOK_SECRET|MANAGE_WEBHOOKS|WRITE_SPACING_MS|INSTALLATION_ID)_(\d+)$/;

/**
 * Every Gitea (or Forgejo) instance the deployment serves (docs/reference/config.md#several-gitea-instances):
 * `GITEA_URL` and its variables (numbered `GITEA_INSTALLATION_ID`, default 1), then each
 * `GITEA_URL_<N>` with its `_<N>` variables, numbered N. `raw` is the process environment, since
 * numbered names are not in `Env`. Refused at start, by name, never by value: a half-configured
 * instance, a number used twice, two instances with the same URL (or dashboard name, which agents
 * name them by) or the same webhook secret (a delivery's signature names its instance).
 */
export function giteaConfigsOf(env: Env, raw: Readonly<Record<string, string | undefined>>): GiteaConfig[] {
  const first = giteaConfigOf(env);
  const numbers = new Set<number>();
  for (const [name, value] of Object.entries(raw)) {
    const match = numberedVariable.exec(name);
    if (!match || value === undefined || value.trim() === "") continue;
    if (match[2] !== String(Number(match[2]))) {
      throw new EnvError(`invalid environment variable ${name}: an instance's number has no leading zero`);
    }
    if (match[1] === "INSTALLATION_ID") {
      throw new EnvError(
        `invalid environment variable ${name}: an instance's number is its suffix (GITEA_URL_${match[2]})`,
      );
    }
    numbers.add(Number(match[2]));
  }
  const configs = first ? [first] : [];
  for (const number of [...numbers].sort((a, b) => a - b)) {
    configs.push(numberedConfigOf(number, raw));
  }
  refuseCollisions(configs, first);
  return configs;
}

/** Instance N's variables read as `GITEA_URL` and the rest are, an error naming the numbered variable. */
function numberedConfigOf(number: number, raw: Readonly<Record<string, string | undefined>>): GiteaConfig {
  if (number < 2 || number > 2 ** 31 - 1) {
    throw new EnvError(
      `invalid environment variable GITEA_URL_${number}: numbered instances are numbered from 2 (GITEA_URL is the first)`,
    );
  }
  const unnumbered: Record<string, string | undefined> = {};
  for (const name of numberedNames) unnumbered[`GITEA_${name}`] = raw[`GITEA_${name}_${number}`];
  const parsed = Env.safeParse(unnumbered);
  const numbered = (message: string) =>
    message.replace(/GITEA_([A-Z_]+)/g, (variable) => `${variable}_${number}`);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EnvError(numbered(`invalid environment variable ${issue?.path.join(".")}: ${issue?.message}`));
  }
  try {
    const config = giteaConfigOf({ ...parsed.data, GITEA_INSTALLATION_ID: number });
    if (!config) throw new EnvError(`invalid environment variable GITEA_URL_${number}: required`);
    return config;
  } catch (error) {
    if (error instanceof EnvError) throw new EnvError(numbered(error.message));
    throw error;
  }
}

/** The variable that sets instance `config`'s `name` (`GITEA_URL`, `GITEA_URL_2`, …). */
function variableOf(config: GiteaConfig, first: GiteaConfig | null, name: string): string {
  return config === first ? `GITEA_${name}` : `GITEA_${name}_${config.installationId}`;
}

function refuseCollisions(configs: GiteaConfig[], first: GiteaConfig | null): void {
  for (const [index, config] of configs.entries()) {
    for (const earlier of configs.slice(0, index)) {
      if (earlier.installationId === config.installationId) {
        throw new EnvError(
          `invalid environment variable GITEA_INSTALLATION_ID: instance number ${config.installationId} is also ${variableOf(config, first, "URL")}'s`,
        );
      }
      if (giteaInstanceName(earlier.url).toLowerCase() === giteaInstanceName(config.url).toLowerCase()) {
        throw new EnvError(
          `invalid environment variable ${variableOf(config, first, "URL")}: the same instance as ${variableOf(earlier, first, "URL")}`,
        );
      }
      if (earlier.webhookSecret === config.webhookSecret) {
        // A derived secret is the same for the same token: the token is what to change.
        const variable = config.webhookSecretDerived ? "TOKEN" : "WEBHOOK_SECRET";
        throw new EnvError(
          `invalid environment variable ${variableOf(config, first, variable)}: the webhook secret of ${variableOf(earlier, first, "URL")} too (a delivery's signature names its instance)`,
        );
      }
    }
  }
}
