// The HTTP API of SPEC §4: a Hono app whose routes translate requests into calls on the lease core.
import { createHash, timingSafeEqual } from "node:crypto";
import { getRequestListener } from "@hono/node-server";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Logger } from "pino";
import type { z } from "zod";
import { subjectName } from "../domain/claim.js";
import { JobBusyError } from "../janitor/job-registry.js";
import { UserError } from "../lease/errors.js";
import type { LeaseCore } from "../lease/lease-core.js";
import {
  type GitHubUser,
  GitHubWriteError,
  type IdentityProvider,
  type RepoPermission,
} from "../providers/assignment-provider.js";
import { StoreUnavailableError } from "../providers/liveness-store.js";
import {
  ClaimBody,
  HeartbeatBody,
  InventoryQuery,
  JanitorRunBody,
  ReleaseBody,
  RepoName,
} from "./api-schemas.js";
import { clientAddressOf } from "./client-address.js";
import { type FailedAuthLimiter, invalidCredential, rateLimited } from "./failed-auth-limiter.js";
import type { ReadCache } from "./read-cache.js";
import { type ReadFamily, type ReadLimiter, readRateLimited } from "./read-limiter.js";

export const maxBodyBytes = 64 * 1024;

export interface ApiDeps {
  core: LeaseCore;
  identity: IdentityProvider;
  limiter: FailedAuthLimiter;
  /** The inventory and subject routes' shared answers and per-login limit (SPEC §4.1). */
  reads: { cache: ReadCache; limiter: ReadLimiter };
  /** `X-Forwarded-For` hops trusted for the client address (`CLAIM_HOLD_TRUST_PROXY`; 0: the socket's). */
  trustProxyHops?: number;
  /**
   * Whether checking a token for `leaseId` costs no GitHub request: the store holds its subject (a
   * subject the store lost is recovered from its claim comments). Absent: every lease call is checked.
   */
  leaseOnRecord?: (leaseId: string) => Promise<boolean>;
  log: Logger;
  /** Readiness probes beyond the process being up (Redis reachable, credentials loaded). */
  ready: () => Promise<{ ok: boolean; checks: Record<string, string> }>;
  /** The janitor, for the operator route (absent admin token → operator routes answer 404). */
  janitor?: { sweep: (options: { dryRun?: boolean; installationId?: number }) => Promise<unknown> };
  adminToken?: string;
  /** Extra routes other features mount on the same app (attest, dashboard). */
  extend?: (app: Hono<ApiEnv>) => void;
}

export type ApiEnv = { Variables: { requestId: string; clientAddress: string } };

const permissionRank: Record<RepoPermission, number> = {
  none: 0,
  read: 1,
  triage: 2,
  write: 3,
  maintain: 4,
  admin: 5,
};

function isOctokitHttpError(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === "HttpError" &&
    typeof (error as { status?: unknown }).status === "number"
  );
}

/** Constant-time comparison of a presented secret with the configured one. */
export function sameSecret(presented: string, expected: string): boolean {
  const a = createHash("sha256").update(presented).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

export function hasPermission(actual: RepoPermission, needed: RepoPermission): boolean {
  return permissionRank[actual] >= permissionRank[needed];
}

/** Reads the bearer credential; both `Bearer x` and GitHub's `token x` are accepted. */
export function bearerOf(c: Context): string | null {
  const header = c.req.header("authorization");
  const match = header ? /^(?:bearer|token)\s+(\S{1,512})$/i.exec(header.trim()) : null;
  return match?.[1] ?? null;
}

/** Parses a JSON body against a strict schema: 400 for bad JSON, 415 for other media, 422 naming the field. */
export async function readBody<T extends z.ZodType>(
  c: Context,
  schema: T,
  optional = false,
): Promise<z.infer<T>> {
  const text = await c.req.text();
  if (text.trim() === "" && optional) return schema.parse({});
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new UserError(415, "unsupported_media_type", "Send the body as application/json.");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UserError(400, "invalid_json", "The body is not valid JSON.");
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const unknownKey = issue.code === "unrecognized_keys" ? issue.keys[0] : undefined;
    const field = [...issue.path, ...(unknownKey ? [unknownKey] : [])].map(String).join(".") || "(body)";
    const message = unknownKey ? `Unknown field "${field}".` : `Field "${field}": ${issue.message}.`;
    throw new UserError(422, "invalid_request", message, { field });
  }
  return parsed.data;
}

export function createApi(deps: ApiDeps): Hono<ApiEnv> {
  const { core, identity, limiter, log } = deps;
  const app = new Hono<ApiEnv>();

  app.use("*", async (c, next) => {
    c.set("requestId", c.req.header("x-request-id") ?? crypto.randomUUID());
    const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
    c.set(
      "clientAddress",
      clientAddressOf({
        socketAddress: incoming?.socket?.remoteAddress ?? "unknown",
        forwardedFor: c.req.header("x-forwarded-for"),
        trustedHops: deps.trustProxyHops ?? 0,
      }),
    );
    await next();
  });
  app.use(
    "/api/*",
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) => c.json({ error: "payload_too_large", message: "Bodies are limited to 64 KiB." }, 413),
    }),
  );

  /**
   * Failed authentications count against the client address; past the limit, a credential that
   * turns out invalid gets 429 instead of its error. A valid one is never refused for that.
   */
  function authFailed(c: Context<ApiEnv>, error: UserError): UserError {
    return invalidCredential(limiter, c.get("clientAddress"), error);
  }

  async function githubCaller(
    c: Context<ApiEnv>,
    repo: string,
    needed: RepoPermission,
    readFamily?: ReadFamily,
  ): Promise<{ user: GitHubUser; installationId: number }> {
    const token = bearerOf(c);
    if (!token)
      throw authFailed(
        c,
        new UserError(401, "unauthorized", "Send your GitHub token as a Bearer credential."),
      );
    // Asking GitHub about a token costs quota: from a limited address, only about tokens it accepted lately.
    const retryAfter = limiter.blockedFor(c.get("clientAddress"));
    if (retryAfter > 0 && !limiter.knownGood(token)) throw rateLimited(retryAfter);
    const user = await identity.userForToken(token);
    if (!user) {
      limiter.rejected(token);
      throw authFailed(c, new UserError(401, "unauthorized", "GitHub did not accept that token."));
    }
    limiter.accepted(token);
    // Counted before anything about the repository is asked, so a caller over its limit costs nothing.
    if (readFamily) {
      const wait = deps.reads.limiter.take(readFamily, user.login);
      if (wait > 0) throw readRateLimited(readFamily, wait);
    }
    const installationId = await identity.installationFor(repo);
    if (installationId === null) {
      throw new UserError(404, "not_installed", `The claim-hold App is not installed on ${repo}.`);
    }
    const permission = await identity.permission(installationId, repo, user.login);
    if (!hasPermission(permission, needed)) {
      throw new UserError(403, "forbidden", `@${user.login} needs ${needed} permission on ${repo}.`, {
        permission,
      });
    }
    return { user, installationId };
  }

  function leaseToken(c: Context<ApiEnv>): string {
    const token = bearerOf(c);
    if (!token?.startsWith("clh_")) {
      throw authFailed(
        c,
        new UserError(401, "unauthorized", "Send the lease token (clh_…) as a Bearer credential."),
      );
    }
    return token;
  }

  /**
   * A lease token is checked in the store, so even a limited address gets it checked — unless the
   * store lost the subject and the check would ask GitHub. One refused counts as a failed authentication.
   */
  async function asLease<T>(c: Context<ApiEnv>, run: (token: string) => Promise<T>): Promise<T> {
    const token = leaseToken(c);
    const retryAfter = limiter.blockedFor(c.get("clientAddress"));
    if (retryAfter > 0 && deps.leaseOnRecord && !(await deps.leaseOnRecord(c.req.param("leaseId") ?? ""))) {
      throw rateLimited(retryAfter);
    }
    try {
      return await run(token);
    } catch (error) {
      // A wrong token, or a lease id nobody holds, counts as a failed authentication.
      if (error instanceof UserError && (error.status === 401 || error.status === 404)) {
        throw authFailed(c, error);
      }
      throw error;
    }
  }

  app.post("/api/v1/claims", async (c) => {
    const body = await readBody(c, ClaimBody);
    const { user, installationId } = await githubCaller(c, body.repo, "write");
    // The session key is a secret: it never joins the actor that records, comments and answers show.
    const { sessionKey, ...actor } = body.actor;
    const result = await core.claim({
      installationId,
      repo: body.repo,
      issue: body.issue,
      user,
      actor,
      ...(sessionKey ? { sessionKey } : {}),
      ...(body.leaseToken ? { leaseToken: body.leaseToken } : {}),
      taskClass: body.taskClass,
      takeover: body.takeover,
      ...(body.branch ? { branch: body.branch } : {}),
      ...(body.scope ? { scope: body.scope } : {}),
      ...(body.artifacts ? { artifacts: body.artifacts } : {}),
    });
    log.info(
      { requestId: c.get("requestId"), subject: subjectName(body.repo, body.issue), status: result.status },
      "claim answered",
    );
    return c.json(result.body, result.status);
  });

  app.post("/api/v1/leases/:leaseId/heartbeat", async (c) => {
    const body = await readBody(c, HeartbeatBody, true);
    return c.json(await asLease(c, (token) => core.heartbeat(c.req.param("leaseId"), token, body)));
  });

  app.post("/api/v1/leases/:leaseId/release", async (c) => {
    const body = await readBody(c, ReleaseBody);
    return c.json(await asLease(c, (token) => core.release(c.req.param("leaseId"), token, body)));
  });

  app.get("/api/v1/leases/:leaseId", async (c) => {
    return c.json(await asLease(c, (token) => core.verify(c.req.param("leaseId"), token)));
  });

  app.get("/api/v1/repos/:owner/:repo/issues/:number/claim", async (c) => {
    const repo = `${c.req.param("owner")}/${c.req.param("repo")}`;
    const issue = Number(c.req.param("number"));
    if (
      !RepoName.safeParse(repo).success ||
      !Number.isSafeInteger(issue) ||
      issue < 1 ||
      issue > 2_147_483_647
    ) {
      throw new UserError(404, "not_found", "No such repository or issue.");
    }
    const { installationId } = await githubCaller(c, repo, "read", "subject");
    // Served only after this caller's permission was checked; the answer itself is shared.
    const key = ["subject", installationId, repo.toLowerCase(), issue];
    return c.json(await deps.reads.cache.answer(key, () => core.subject(installationId, repo, issue)));
  });

  app.get("/api/v1/repos/:owner/:repo/claims", async (c) => {
    const repo = `${c.req.param("owner")}/${c.req.param("repo")}`;
    if (!RepoName.safeParse(repo).success) throw new UserError(404, "not_found", "No such repository.");
    const query = InventoryQuery.safeParse({ state: c.req.query("state"), limit: c.req.query("limit") });
    if (!query.success) {
      const issue = query.error.issues[0]!;
      throw new UserError(
        422,
        "invalid_request",
        `Query parameter "${issue.path.join(".")}": ${issue.message}.`,
        {
          field: issue.path.join("."),
        },
      );
    }
    const { installationId } = await githubCaller(c, repo, "read", "inventory");
    const { state, limit } = query.data;
    const key = ["inventory", installationId, repo.toLowerCase(), state ?? "", limit];
    return c.json(await deps.reads.cache.answer(key, () => core.inventory(installationId, repo, query.data)));
  });

  app.post("/api/v1/admin/janitor/run", async (c) => {
    if (!deps.adminToken || !deps.janitor) throw new UserError(404, "not_found", "No such route.");
    const token = bearerOf(c);
    if (!token || !sameSecret(token, deps.adminToken)) {
      throw authFailed(c, new UserError(401, "unauthorized", "Send the admin token as a Bearer credential."));
    }
    const body = await readBody(c, JanitorRunBody, true);
    // Under the janitor job's lock, like a scheduled sweep: refused at once while a sweep runs on any
    // replica. A dry run takes the lock too: beside a running sweep it would report actions half done.
    try {
      return c.json(await deps.janitor.sweep(body));
    } catch (error) {
      if (!(error instanceof JobBusyError)) throw error;
      throw new UserError(
        409,
        "janitor_busy",
        "A janitor sweep is running already (scheduled or operator-run); retry once it has finished.",
      );
    }
  });

  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => {
    const readiness = await deps.ready();
    return c.json(
      { status: readiness.ok ? "ready" : "not_ready", checks: readiness.checks },
      readiness.ok ? 200 : 503,
    );
  });

  deps.extend?.(app);

  app.notFound((c) => c.json({ error: "not_found", message: "No such route." }, 404));
  app.onError((error, c) => {
    const requestId = c.get("requestId");
    if (error instanceof UserError) {
      if (error.status === 429) c.header("Retry-After", String(error.details.retryAfterSeconds ?? 60));
      return c.json(error.toBody(), error.status as 400);
    }
    if (error instanceof StoreUnavailableError) {
      log.error({ requestId, err: error }, "claim store unavailable");
      return c.json(
        { error: "store_unavailable", message: "The claim store is unavailable; retry shortly." },
        503,
      );
    }
    // A GitHub read that failed (Octokit's HttpError) is as much "GitHub failed" as a refused write.
    if (error instanceof GitHubWriteError || isOctokitHttpError(error)) {
      log.error({ requestId, err: error }, "GitHub request failed");
      return c.json(
        { error: "github_failed", message: "GitHub did not answer as expected; retry is safe." },
        502,
      );
    }
    log.error({ requestId, err: error }, "internal error");
    return c.json({ error: "internal", message: `Internal error (request ${requestId}).` }, 500);
  });
  return app;
}

/** Probot `addHandler` adapter: the API answers its own paths and passes every other request on. */
export function apiHandler(app: Hono<ApiEnv>, owns: (path: string) => boolean) {
  const listener = getRequestListener(app.fetch);
  return async (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (!owns(path)) return false;
    await listener(req, res);
    return true;
  };
}
