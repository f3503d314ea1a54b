// Typed client for every route of the claim-hold HTTP API (docs/reference/http-api.md), for agents and the CLI.

import {
  type AttestResponse,
  AttestResponseSchema,
  type HeartbeatResponse,
  HeartbeatResponseSchema,
  type InventoryResponse,
  InventoryResponseSchema,
  type ReleaseResponse,
  ReleaseResponseSchema,
  type SubjectResponse,
  SubjectResponseSchema,
  type VerifyResponse,
  VerifyResponseSchema,
} from "../../contract/api-responses.js";
import type { LeaseEvent } from "../../contract/lease-events.js";
import { type QueueResponse, QueueResponseSchema } from "../../contract/queue-responses.js";
import { abortableSleep } from "./abortable-sleep.js";
import { claimNext } from "./claim-next.js";
import { claimWithTakeoverWaits } from "./claim-with-takeover-waits.js";
import { ClaimHoldError } from "./errors.js";
import { readLeaseEvents } from "./lease-events.js";
import type {
  CallOptions,
  ClaimInput,
  ClaimNextInput,
  ClaimNextResult,
  ClaimOptions,
  ClaimResult,
  HeartbeatInput,
  LeaseCredentials,
  ReleaseInput,
} from "./request-types.js";
import { openStream, parseBody, type RetryPolicy, sendRequest, type TransportDeps } from "./send-request.js";

export * from "../../contract/api-responses.js";
export * from "../../contract/claim-vocabulary.js";
/** The derived claim states (docs/reference/http-api.md); kept out of the response schemas so a new state never breaks a client. */
export * from "../../contract/derived-states.js";
/** The live lease events' names and payloads. */
export * from "../../contract/lease-events.js";
/** `claims/next` and the queue view. */
export * from "../../contract/queue-responses.js";
export { abortableSleep } from "./abortable-sleep.js";
export { backoffDelay } from "./backoff.js";
export { ClaimHoldError, type ClaimHoldErrorCode, isClaimHoldError, redactSecrets } from "./errors.js";
export type * from "./request-types.js";

export interface ClaimHoldClientOptions {
  /** Where the App is served, e.g. `https://claim-hold.example.com`. */
  baseUrl: string;
  /** GitHub token of the agent's account: needed by claim, inventory and subject. */
  githubToken?: string;
  /**
   * The forge `githubToken` belongs to (`github`, `gitea`, `gitea:<host>` for one of several Gitea
   * instances), sent as `X-Claim-Hold-Forge`. Only needed when the App serves more than one forge;
   * then `githubToken` may be a Gitea access token.
   */
  forge?: string;
  fetch?: typeof globalThis.fetch;
  /** Injected so tests never sleep; must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Retries after the first attempt, for the calls whose policy allows them (default 4). */
  retries?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  timeoutMs?: number;
  /** How many `202 takeover_pending` answers a claim waits out before giving up (default 3). */
  maxTakeoverWaits?: number;
  userAgent?: string;
}

export interface ClaimHoldClient {
  /** Claims, re-claims or takes over; waits out `202 takeover_pending` up to `maxTakeoverWaits` times. */
  claim(input: ClaimInput, options?: ClaimOptions): Promise<ClaimResult>;
  /**
   * Lets the server pick the best free issue and claims it. Fails with `queue_empty` (409, `details.skipped`
   * counts why) when nothing is eligible. Never retried (a repeated pick is a second claim).
   */
  claimNext(input: ClaimNextInput, options?: ClaimOptions): Promise<ClaimNextResult>;
  heartbeat(
    lease: LeaseCredentials,
    input?: HeartbeatInput,
    options?: CallOptions,
  ): Promise<HeartbeatResponse>;
  release(lease: LeaseCredentials, input: ReleaseInput, options?: CallOptions): Promise<ReleaseResponse>;
  attest(lease: LeaseCredentials, sha: string, options?: CallOptions): Promise<AttestResponse>;
  /**
   * Opens the lease's live event stream: resolves once the server accepted it (its first event is the
   * lease's state), throws ClaimHoldError as `verify` would (404 from an older server without it).
   * The iteration ends when the server ends the stream; abort `signal` to close it.
   */
  leaseEvents(lease: LeaseCredentials, options?: CallOptions): Promise<AsyncIterable<LeaseEvent>>;
  /** The verify-hold gate: resolves only while this lease still holds its subject. */
  verify(lease: LeaseCredentials, options?: CallOptions): Promise<VerifyResponse>;
  inventory(
    repo: string,
    query?: { state?: string; limit?: number },
    options?: CallOptions,
  ): Promise<InventoryResponse>;
  subject(repo: string, issue: number, options?: CallOptions): Promise<SubjectResponse>;
  /** The server's ranked queue: eligible issues best first with their reasons, then the first skipped ones with why. */
  /** `capabilities`: the queue as a session declaring them sees it (issues needing others are skipped). */
  queue(
    repo: string,
    query?: { limit?: number; capabilities?: string[] },
    options?: CallOptions,
  ): Promise<QueueResponse>;
}

export function createClaimHoldClient(options: ClaimHoldClientOptions): ClaimHoldClient {
  const deps = transportDepsOf(options);
  const maxTakeoverWaits = options.maxTakeoverWaits ?? 3;

  const githubToken = (call: string) => githubTokenFor(options, call);

  return {
    async claim(input, claimOptions = {}) {
      return claimWithTakeoverWaits(deps, githubToken("claim"), input, claimOptions, maxTakeoverWaits);
    },

    async claimNext(input, claimOptions = {}) {
      return claimNext(deps, githubToken("claim next"), input, claimOptions, maxTakeoverWaits);
    },

    async heartbeat(lease, input = {}, callOptions = {}) {
      const raw = await sendLeaseRequest(
        deps,
        lease,
        "POST",
        "/heartbeat",
        "network-and-5xx",
        input,
        callOptions.signal,
      );
      return parseBody(HeartbeatResponseSchema, raw, "heartbeat");
    },

    async release(lease, input, callOptions = {}) {
      const raw = await sendLeaseRequest(deps, lease, "POST", "/release", "none", input, callOptions.signal);
      return parseBody(ReleaseResponseSchema, raw, "release");
    },

    async attest(lease, sha, callOptions = {}) {
      const raw = await sendLeaseRequest(deps, lease, "POST", "/attest", "none", { sha }, callOptions.signal);
      return parseBody(AttestResponseSchema, raw, "attest");
    },

    async leaseEvents(lease, callOptions = {}) {
      const response = await openStream(deps, {
        method: "GET",
        path: `api/v1/leases/${encodeURIComponent(lease.id)}/events`,
        token: lease.token,
        signal: callOptions.signal,
      });
      if (!response.body)
        throw new ClaimHoldError({
          status: response.status,
          code: "invalid_response",
          message: "the event stream has no body",
        });
      return readLeaseEvents(response.body);
    },

    async verify(lease, callOptions = {}) {
      const raw = await sendLeaseRequest(
        deps,
        lease,
        "GET",
        "",
        "network-and-5xx",
        undefined,
        callOptions.signal,
      );
      return parseBody(VerifyResponseSchema, raw, "verify");
    },

    async inventory(repo, query = {}, callOptions = {}) {
      const params = new URLSearchParams();
      if (query.state) params.set("state", query.state);
      if (query.limit !== undefined) params.set("limit", String(query.limit));
      const search = params.size > 0 ? `?${params}` : "";
      const raw = await sendRequest(deps, {
        method: "GET",
        path: `api/v1/repos/${repoPath(repo)}/claims${search}`,
        token: githubToken("inventory"),
        policy: "network-and-5xx",
        signal: callOptions.signal,
      });
      return parseBody(InventoryResponseSchema, raw, "inventory");
    },

    async subject(repo, issue, callOptions = {}) {
      const raw = await sendRequest(deps, {
        method: "GET",
        path: `api/v1/repos/${repoPath(repo)}/issues/${issue}/claim`,
        token: githubToken("subject"),
        policy: "network-and-5xx",
        signal: callOptions.signal,
      });
      return parseBody(SubjectResponseSchema, raw, "subject");
    },

    async queue(repo, query = {}, callOptions = {}) {
      const params = new URLSearchParams();
      if (query.limit !== undefined) params.set("limit", String(query.limit));
      if (query.capabilities?.length) params.set("capabilities", query.capabilities.join(","));
      const search = params.size === 0 ? "" : `?${params}`;
      const raw = await sendRequest(deps, {
        method: "GET",
        path: `api/v1/repos/${repoPath(repo)}/queue${search}`,
        token: githubToken("queue"),
        policy: "network-and-5xx",
        signal: callOptions.signal,
      });
      return parseBody(QueueResponseSchema, raw, "queue");
    },
  };
}

function transportDepsOf(options: ClaimHoldClientOptions): TransportDeps {
  return {
    baseUrl: options.baseUrl,
    ...(options.forge !== undefined ? { forge: options.forge } : {}),
    fetch: options.fetch ?? globalThis.fetch,
    sleep: options.sleep ?? abortableSleep,
    random: options.random ?? Math.random,
    retries: options.retries ?? 4,
    baseDelayMs: options.baseDelayMs ?? 250,
    maxDelayMs: options.maxDelayMs ?? 8_000,
    timeoutMs: options.timeoutMs ?? 30_000,
    userAgent: options.userAgent ?? "claim-hold-client",
  };
}

function githubTokenFor(options: ClaimHoldClientOptions, call: string): string {
  if (options.githubToken) return options.githubToken;
  throw new ClaimHoldError({
    status: 0,
    code: "missing_github_token",
    message: `${call} needs a GitHub token of the agent's account (GH_TOKEN, GITHUB_TOKEN or gh auth token)`,
  });
}

/** A call on one lease, authorised by the lease's own token. */
function sendLeaseRequest(
  deps: TransportDeps,
  lease: LeaseCredentials,
  method: "GET" | "POST",
  suffix: string,
  policy: RetryPolicy,
  body: unknown,
  signal: AbortSignal | undefined,
) {
  return sendRequest(deps, {
    method,
    path: `api/v1/leases/${encodeURIComponent(lease.id)}${suffix}`,
    token: lease.token,
    body,
    policy,
    signal,
  });
}

function repoPath(repo: string): string {
  const [owner, name, ...rest] = repo.split("/");
  if (!owner || !name || rest.length > 0) throw new TypeError(`expected owner/name, got "${repo}"`);
  return `${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}
