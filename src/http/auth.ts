// Who calls the API: bearer credentials, the admin secret, GitHub users' permission and lease tokens.
import { createHash, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import type { Forge } from "../domain/forge.js";
import { isOtherForgesToken } from "../domain/forge.js";
import type { LeaseRefused } from "../lease/refusals.js";
import type { GitHubUser, IdentityProvider, RepoPermission } from "../providers/assignment-provider.js";
import type { ApiEnv } from "./api-env.js";
import { refusalStatusOf } from "./error-response.js";
import { type FailedAuthLimiter, invalidCredential, rateLimited } from "./failed-auth-limiter.js";
import { forgeHeader, forgeTitle, requestForge, type ServedForges } from "./forge-selection.js";
import { type ReadFamily, type ReadLimiter, readRateLimited } from "./read-limiter.js";
import { UserError } from "./user-error.js";

export interface AuthDeps {
  identity: IdentityProvider;
  /**
   * The forges the App serves and each one's identity, when it serves more than GitHub: a request
   * presenting a forge token names its forge (`X-Claim-Hold-Forge`). Absent: GitHub alone, `identity`.
   */
  forges?: ServedForges;
  limiter: FailedAuthLimiter;
  /** The inventory and subject routes' per-login limit (docs/reference/http-api.md#reads). */
  readLimiter: ReadLimiter;
  /**
   * Whether checking a token for `leaseId` costs no GitHub request: the store holds its subject (a
   * subject the store lost is recovered from its claim comments). Absent: every lease call is checked.
   */
  leaseOnRecord?: (leaseId: string) => Promise<boolean>;
}

const permissionRank: Record<RepoPermission, number> = {
  none: 0,
  read: 1,
  triage: 2,
  write: 3,
  maintain: 4,
  admin: 5,
};

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
  return bearerIn(c.req.header("authorization"));
}

/** The bearer credential of an `Authorization` header (every occurrence joined with ", "). */
export function bearerIn(header: string | undefined): string | null {
  const match = header ? /^(?:bearer|token)\s+(\S{1,512})$/i.exec(header.trim()) : null;
  return match?.[1] ?? null;
}

/**
 * Failed authentications count against the client address; past the limit, a credential that
 * turns out invalid gets 429 instead of its error. A valid one is never refused for that.
 */
export function authFailed(
  c: Context<ApiEnv>,
  limiter: FailedAuthLimiter,
  error: UserError | LeaseRefused,
): Promise<UserError | LeaseRefused> {
  return invalidCredential(limiter, c.get("clientAddress"), error);
}

/** The admin token as the bearer credential, or a failed authentication. */
export async function requireSecret(
  c: Context<ApiEnv>,
  limiter: FailedAuthLimiter,
  secret: string,
  message: string,
): Promise<void> {
  const token = bearerOf(c);
  if (!token || !sameSecret(token, secret)) {
    throw await authFailed(c, limiter, new UserError(401, "unauthorized", message));
  }
}

/**
 * The GitHub user behind the bearer token, with at least `needed` permission on `repo`, and the
 * App's installation there. `readFamily` counts the call against that read route's per-login limit.
 */
export async function githubCaller(
  c: Context<ApiEnv>,
  deps: Pick<AuthDeps, "identity" | "forges" | "limiter" | "readLimiter">,
  repo: string,
  needed: RepoPermission,
  readFamily?: ReadFamily,
): Promise<{ user: GitHubUser; installationId: number }> {
  const { limiter } = deps;
  const { forge, identity } = forgeIdentityOf(c, deps);
  const token = bearerOf(c);
  if (!token)
    throw await authFailed(
      c,
      limiter,
      new UserError(401, "unauthorized", `Send your ${forgeTitle(forge)} token as a Bearer credential.`),
    );
  // A valid credential is never refused for others' failures: from a limited address, a token GitHub
  // accepted lately passes, and one the App has not seen is asked about at a bounded rate (the ask
  // costs that token's own quota). Whether the address is limited is known in memory: a call from an
  // address that is not costs the limiter no store call.
  const address = c.get("clientAddress");
  const retryAfter = limiter.blockedFor(address);
  if (retryAfter > 0 && !(await limiter.knownGood(token)) && !(await limiter.takeVerification(address))) {
    throw rateLimited(retryAfter);
  }
  if (isOtherForgesToken(forge, token)) {
    throw await authFailed(
      c,
      limiter,
      new UserError(
        401,
        "unauthorized",
        `That is a GitHub token; send your ${forgeTitle(forge)} account's token (it was not sent to ${forgeTitle(forge)}).`,
      ),
    );
  }
  const user = await identity.userForToken(token);
  if (!user) {
    await limiter.rejected(token);
    throw await authFailed(
      c,
      limiter,
      new UserError(401, "unauthorized", `${forgeTitle(forge)} did not accept that token.`),
    );
  }
  await limiter.accepted(token);
  // Counted before anything about the repository is asked, so a caller over its limit costs nothing.
  if (readFamily) {
    const wait = await deps.readLimiter.take(readFamily, user.login);
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

/** The forge a request presenting a forge token is for, and the identity provider that answers for it. */
function forgeIdentityOf(
  c: Context<ApiEnv>,
  deps: Pick<AuthDeps, "identity" | "forges">,
): { forge: Forge; identity: IdentityProvider } {
  const forges: ServedForges = deps.forges ?? { served: ["github"], identityOf: () => deps.identity };
  const { forge, instance } = requestForge(c.req.header(forgeHeader), forges.served, forges.giteaInstances);
  return { forge, identity: forges.identityOf(forge, instance) };
}

/** The lease token (`clh_…`) as the bearer credential, or a failed authentication. */
export async function leaseToken(c: Context<ApiEnv>, limiter: FailedAuthLimiter): Promise<string> {
  const token = leaseTokenIn(c.req.header("authorization"));
  if (token === null) throw await noLeaseToken(c.get("clientAddress"), limiter);
  return token;
}

function leaseTokenIn(authorization: string | undefined): string | null {
  const token = bearerIn(authorization);
  return token?.startsWith("clh_") ? token : null;
}

function noLeaseToken(clientAddress: string, limiter: FailedAuthLimiter) {
  return invalidCredential(
    limiter,
    clientAddress,
    new UserError(401, "unauthorized", "Send the lease token (clh_…) as a Bearer credential."),
  );
}

/** What a lease call is checked by: the `Authorization` header, the client address and the lease id. */
export interface LeaseRequest {
  authorization: string | undefined;
  clientAddress: string;
  leaseId: string;
}

/**
 * Runs a lease call with the request's lease token. A lease token is checked in the store, so even a
 * limited address gets it checked — unless the store lost the subject and the check would ask GitHub.
 * A call refused with one of `refusedStatuses` counts as a failed authentication.
 */
export function asLease<T>(
  c: Context<ApiEnv>,
  deps: Pick<AuthDeps, "limiter" | "leaseOnRecord">,
  run: (token: string) => Promise<T>,
  refusedStatuses: readonly number[] = [401, 404],
): Promise<T> {
  const request: LeaseRequest = {
    authorization: c.req.header("authorization"),
    clientAddress: c.get("clientAddress"),
    leaseId: c.req.param("leaseId") ?? "",
  };
  return asLeaseOf(request, deps, run, refusedStatuses);
}

/** `asLease` on the parts of a request it reads (the heartbeat's own route has no Hono context). */
export async function asLeaseOf<T>(
  request: LeaseRequest,
  deps: Pick<AuthDeps, "limiter" | "leaseOnRecord">,
  run: (token: string) => Promise<T>,
  refusedStatuses: readonly number[] = [401, 404],
): Promise<T> {
  const token = await leaseTokenOfRequest(request, deps);
  try {
    return await run(token);
  } catch (error) {
    throw await leaseCallFailed(request, deps, error, refusedStatuses);
  }
}

/**
 * The first half of `asLeaseOf`: the request's lease token, or a failed authentication. A promise
 * only without a lease token (the failure is counted) or from a limited address, whose lease is
 * looked up before its token is checked: a valid holder's call stays synchronous here.
 */
export function leaseTokenOfRequest(
  request: LeaseRequest,
  deps: Pick<AuthDeps, "limiter" | "leaseOnRecord">,
): string | Promise<string> {
  const { limiter, leaseOnRecord } = deps;
  const token = leaseTokenIn(request.authorization);
  if (token === null)
    return noLeaseToken(request.clientAddress, limiter).then((error) => Promise.reject(error));
  const retryAfter = limiter.blockedFor(request.clientAddress);
  if (retryAfter <= 0 || !leaseOnRecord) return token;
  return leaseOnRecord(request.leaseId).then((onRecord) => {
    if (!onRecord) throw rateLimited(retryAfter);
    return token;
  });
}

/**
 * The second half of `asLeaseOf`: what the lease call's error becomes. A wrong token, or (by
 * default) a lease id nobody holds, counts as a failed authentication.
 */
export async function leaseCallFailed(
  request: LeaseRequest,
  deps: Pick<AuthDeps, "limiter">,
  error: unknown,
  refusedStatuses: readonly number[] = [401, 404],
): Promise<unknown> {
  const status = refusalStatusOf(error);
  if (status !== undefined && refusedStatuses.includes(status)) {
    return invalidCredential(deps.limiter, request.clientAddress, error as UserError | LeaseRefused);
  }
  return error;
}
