// Process environment, validated once at start-up; a bad value stops start-up with one line naming it.
import { z } from "zod";
import { NotifySinksText } from "./notify-sinks.js";

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v));

export const Env = z.object({
  APP_ID: optionalText.pipe(z.string().regex(/^\d+$/, "must be a number").optional()),
  PRIVATE_KEY: optionalText,
  PRIVATE_KEY_PATH: optionalText,
  WEBHOOK_SECRET: optionalText,
  GHE_HOST: optionalText.pipe(
    z
      .string()
      .regex(/^[\w.-]+(:\d+)?$/, "must be a host name like github.example.com")
      .optional(),
  ),
  GHE_PROTOCOL: optionalText.pipe(z.enum(["http", "https"]).optional()),
  LOG_LEVEL: optionalText.pipe(z.enum(["trace", "debug", "info", "warn", "error", "fatal"]).optional()),
  /** `json` (one JSON object a line) or `pretty` (pino-pretty); unset: pretty on a terminal, else JSON. */
  LOG_FORMAT: optionalText.pipe(z.enum(["json", "pretty"]).optional()),
  PORT: optionalText.pipe(z.coerce.number<string | undefined>().int().min(0).max(65535).optional()),
  HOST: optionalText,
  /**
   * How long a client may take to send a whole request (headers and body) before the connection is
   * cut with 408 (slow-loris); headers must arrive within 2/3 of it, at most 20 s. Default 30 s.
   */
  CLAIM_HOLD_REQUEST_TIMEOUT_MS: optionalText.pipe(
    z.coerce.number<string | undefined>().int().min(1_000).max(300_000).optional(),
  ),
  /** Open HTTP connections the server keeps at most; more are closed as they arrive. Default 10,000. */
  CLAIM_HOLD_MAX_CONNECTIONS: optionalText.pipe(
    z.coerce.number<string | undefined>().int().min(10).max(1_000_000).optional(),
  ),
  /** `redis://…`, `rediss://…`, or a comma-separated cluster list `redis-cluster://h1:p1,h2:p2`. */
  REDIS_URL: optionalText.pipe(
    z
      .string()
      .regex(/^(rediss?|redis-cluster):\/\/\S+$/, "must start with redis://, rediss:// or redis-cluster://")
      .optional(),
  ),
  /** Key for the HMAC digests of lease tokens; without it a random one is made (tokens die with the process). */
  CLAIM_HOLD_TOKEN_SECRET: optionalText.pipe(z.string().min(32, "must be at least 32 characters").optional()),
  /** The secret being rotated out: markers and lease tokens made with it stay valid while it is set. */
  CLAIM_HOLD_TOKEN_SECRET_PREVIOUS: optionalText.pipe(
    z.string().min(32, "must be at least 32 characters").optional(),
  ),
  CLAIM_HOLD_ADMIN_TOKEN: optionalText.pipe(z.string().min(16, "must be at least 16 characters").optional()),
  /** Public base URL of the App (e.g. `https://claim-hold.example.com`), for links in check runs. */
  CLAIM_HOLD_PUBLIC_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
  /** A webhook forwarding channel (Probot's convention, e.g. smee.io) relayed to this process when no public URL reaches it. */
  WEBHOOK_PROXY_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
  /** Setup mode registers the App under this organisation (Probot's convention) instead of the signed-in user. */
  GH_ORG: optionalText.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, "must be a GitHub organisation login")
      .optional(),
  ),
  CLAIM_HOLD_KEY_PREFIX: optionalText.pipe(z.string().max(64).optional()),
  METRICS_TOKEN: optionalText,
  JANITOR_INTERVAL_SECONDS: optionalText.pipe(
    z.coerce.number<string | undefined>().int().min(1).max(86_400).optional(),
  ),
  JANITOR_RECONCILE_EVERY: optionalText.pipe(
    z.coerce.number<string | undefined>().int().min(1).max(10_000).optional(),
  ),
  /**
   * How many proxies in front of the App append to `X-Forwarded-For`: the client address the
   * failed-auth limiter counts is that many hops from the right. Default 0: the socket's address,
   * the header ignored (a client could otherwise pick its own address).
   */
  CLAIM_HOLD_TRUST_PROXY: optionalText.pipe(
    z.coerce.number<string | undefined>().int("must be a whole number of hops").min(0).max(32).optional(),
  ),
  /**
   * Inventory and subject reads a GitHub login may make per minute, each route family apart (a
   * bucket of that many, refilled at that rate), per replica. Default 30.
   */
  CLAIM_HOLD_READS_PER_MINUTE: optionalText.pipe(
    z.coerce.number<string | undefined>().int("must be a whole number").min(1).max(10_000).optional(),
  ),
  /**
   * Notification sinks (docs/deploy.md#sinks-claim_hold_notify): a JSON list of
   * `{ url, format: "json" | "slack", events, secret? }`. The URLs are secrets: a bad value is reported
   * by its place in the list, never quoted.
   */
  CLAIM_HOLD_NOTIFY: optionalText.pipe(NotifySinksText.optional()),
  /** A Gitea or Forgejo instance's root URL (`https://gitea.example.com`); with the two below, its webhooks are served. */
  GITEA_URL: optionalText.pipe(
    z
      .url({ protocol: /^https?$/ })
      // Node's fetch refuses such a URL and quotes it, password included, in its error.
      .refine((url) => {
        const { username, password } = new URL(url);
        return username === "" && password === "";
      }, "must not carry a user name or password (the token is GITEA_TOKEN)")
      .optional(),
  ),
  /** The App's bot account's access token on that instance (a secret). */
  GITEA_TOKEN: optionalText.pipe(
    z
      .string()
      .regex(/^[\x21-\x7e]{8,1024}$/, "must be an access token")
      .optional(),
  ),
  /**
   * The secret the instance's webhooks are signed with (a secret). Unset: derived from `GITEA_TOKEN`
   * for the hooks the App registers itself (`GITEA_MANAGE_WEBHOOKS`).
   */
  GITEA_WEBHOOK_SECRET: optionalText.pipe(z.string().min(16, "must be at least 16 characters").optional()),
  /**
   * `0`: the operator makes the instance's webhooks by hand (then `GITEA_WEBHOOK_SECRET` is required).
   * Default `1`: the App registers its own hook on every repository its bot account administers.
   */
  GITEA_MANAGE_WEBHOOKS: optionalText.pipe(z.enum(["0", "1"], "must be 0 or 1").optional()),
  /** The instance's number among the Gitea installation records (default 1; keys `{g:N}`, never a GitHub installation's). */
  GITEA_INSTALLATION_ID: optionalText.pipe(
    z.coerce
      .number<string | undefined>()
      .int("must be a whole number")
      .min(1)
      .max(2 ** 31 - 1)
      .optional(),
  ),
  /** The least time between two writes to the instance (default 250 ms). */
  GITEA_WRITE_SPACING_MS: optionalText.pipe(
    z.coerce.number<string | undefined>().int("must be a whole number").min(0).max(60_000).optional(),
  ),
  /** Comma-separated job names to leave off (tests). */
  CLAIM_HOLD_DISABLE_JOBS: optionalText,
});
export type Env = z.infer<typeof Env>;

export class EnvError extends Error {}

/** Parses the environment; throws one line naming the first bad variable. */
export function parseEnv(env: NodeJS.ProcessEnv): Env {
  const parsed = Env.safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new EnvError(`invalid environment variable ${issue?.path.join(".")}: ${issue?.message}`);
}
