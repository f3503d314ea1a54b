// One request to a Gitea (or Forgejo) REST v1 route: counted, timed out, writes through the limiter, errors that name the route and never the token.
import {
  fillPath,
  GiteaHttpError,
  type GiteaRequestKind,
  giteaRoutes,
  type RequestCounter,
} from "./gitea-routes.js";
import type { WriteLimiter } from "./serial-write-limiter.js";

export interface GiteaTransportOptions {
  /** The instance's root (`https://gitea.example.com`, or with a sub-path); `/api/v1` is appended. */
  baseUrl: string;
  /** The App's bot account token (`GITEA_TOKEN`): never logged, never part of an error. */
  token: string;
  fetch?: typeof fetch;
  /** Called once for every HTTP request (metrics, tests). */
  onRequest?: (kind: GiteaRequestKind) => void;
  /** Every request but a GET goes through it (`serialWriteLimiter`: one at a time, spaced). */
  writeLimiter?: WriteLimiter;
  /** How long one request may take to answer, its body included (default `giteaRequestTimeoutMs`). */
  timeoutMs?: number;
}

/** A Gitea request that has not answered in this long is abandoned, as a GitHub one is (8 s). */
export const giteaRequestTimeoutMs = 8_000;

export interface GiteaCallOptions {
  body?: unknown;
  query?: Record<string, string>;
  /** Another account's token (an agent's) instead of the App's own. */
  token?: string | undefined;
  text?: boolean;
  /** Already inside a turn of the write limiter (`GiteaClient.inWriteSlot`). */
  inSlot?: boolean;
}

export class GiteaTransport {
  /** HTTP requests made so far, all calls together. */
  requests = 0;
  readonly #root: string;
  readonly #fetch: typeof fetch;
  /** Private, so serialising or logging the transport cannot show the token. */
  readonly #options: GiteaTransportOptions;

  constructor(options: GiteaTransportOptions) {
    this.#options = options;
    this.#root = `${options.baseUrl.replace(/\/+$/, "")}/api/v1`;
    this.#fetch = options.fetch ?? fetch;
  }

  /** The write limiter writes go through, if any (`GiteaClient.inWriteSlot` takes one turn of it). */
  get writeLimiter(): WriteLimiter | undefined {
    return this.#options.writeLimiter;
  }

  async call(
    counter: RequestCounter,
    kind: GiteaRequestKind,
    params: Record<string, string | number>,
    options: GiteaCallOptions = {},
  ): Promise<unknown> {
    const route = giteaRoutes[kind];
    const path = fillPath(route.path, params);
    const query = options.query ? `?${new URLSearchParams(options.query)}` : "";
    counter.requests++;
    this.requests++;
    this.#options.onRequest?.(kind);
    const timeoutMs = this.#options.timeoutMs ?? giteaRequestTimeoutMs;
    // The clock starts when the request is sent, not while it waits for the write limiter.
    const send = async () => {
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const response = await this.#fetch(`${this.#root}${path}${query}`, {
          method: route.method,
          headers: {
            authorization: `token ${options.token ?? this.#options.token}`,
            accept: options.text ? "*/*" : "application/json",
            "user-agent": "claim-hold",
            ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
          },
          ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
          signal,
        });
        return { response, text: await response.text() };
      } catch (error) {
        // fetch's own error quotes the whole URL (a user name or password in it too): named by route only.
        if (!signal.aborted)
          throw new Error(`${kind} ${route.method} ${path}: no answer from Gitea${codeOf(error)}`);
        // As a 5xx: nothing is known of the request (it may have been applied), so callers retry or fail alike.
        throw new GiteaHttpError(
          kind,
          504,
          `${route.method} ${path}: Gitea did not answer within ${timeoutMs} ms`,
          { cause: error },
        );
      }
    };
    const limiter = route.method === "GET" || options.inSlot ? undefined : this.#options.writeLimiter;
    const { response, text } = limiter ? await limiter.run(send) : await send();
    if (!response.ok) {
      throw new GiteaHttpError(
        kind,
        response.status,
        `${route.method} ${path}: Gitea answered ${response.status}${reasonOf(text)}`,
      );
    }
    if (options.text) return text;
    if (response.status === 204) return null;
    return text === "" ? null : JSON.parse(text);
  }
}

/** The system error code (`ECONNREFUSED`, …) under a failed fetch, which carries no URL. */
function codeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === "string" && /^[A-Z_]+$/.test(cause.code) ? ` (${cause.code})` : "";
}

/** Gitea's `{ message }`, shortened; bodies never echo the request's token. */
function reasonOf(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown } | null;
    return typeof body?.message === "string" && body.message ? `: ${body.message.slice(0, 200)}` : "";
  } catch {
    return "";
  }
}
