// The App's HTTP server for a normal start: Probot's middleware (or, on a Gitea instance alone, the App's
// handlers) on a Node server whose slow-client and header limits are ours (Probot's `run()` hides its
// server, which keeps Node's 300 s / 60 s defaults).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Logger } from "pino";
import { type ApplicationFunction, createNodeMiddleware, type Probot } from "probot";

export const defaultRequestTimeoutMs = 30_000;
/** Open connections the server keeps at most (file descriptors under thousands of slow sockets). */
export const defaultMaxConnections = 10_000;

export interface HttpServerLimits {
  /** A whole request (headers and body) must arrive within this long, else 408 and the connection is cut. */
  requestTimeout: number;
  /** The headers must arrive within this long (less than `requestTimeout`). */
  headersTimeout: number;
  /** How often Node checks connections against the two timeouts (its 30 s default would double them). */
  connectionsCheckingInterval: number;
  /** Request headers beyond this are refused with 431 (Node's default, pinned against `--max-http-header-size`). */
  maxHeaderSize: number;
  /** Connections past this many open ones are closed as they arrive; those already open keep working. */
  maxConnections: number;
}

/** The server's limits for a request timeout: headers within 2/3 of it (at most 20 s), checked often enough. */
export function httpServerLimits(
  requestTimeoutMs = defaultRequestTimeoutMs,
  maxConnections = defaultMaxConnections,
): HttpServerLimits {
  const headersTimeout = Math.min(20_000, Math.floor((requestTimeoutMs * 2) / 3));
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout,
    connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor(headersTimeout / 4))),
    maxHeaderSize: 16 * 1024,
    maxConnections,
  };
}

/**
 * Loads the App into `probot` and serves it (Probot's documented custom-server path) on `host:port`:
 * the App's own routes, then GitHub's webhooks, else 404. Each request gets an access-log line, as
 * under Probot's `Server`. Resolves once listening.
 */
export async function startAppServer(options: {
  probot: Probot;
  appFn: ApplicationFunction;
  host: string;
  port: number;
  limits: HttpServerLimits;
  log: Logger;
}): Promise<Server> {
  const middleware = await createNodeMiddleware(options.appFn, { probot: options.probot });
  return listen(options, (req, res) =>
    middleware(req, res, () => {
      if (!res.headersSent) res.writeHead(404).end();
    }),
  );
}

/** Where a GitHub App receives GitHub's webhooks (Probot's default path). */
const githubWebhookPath = "/api/github/webhooks";

/**
 * Serves the App without Probot (a Gitea instance alone) on `host:port`: its handlers in order, else
 * 404; GitHub's webhook path gets a 404 that says why, so a GitHub App pointed here by mistake is
 * told. Each request gets an access-log line. Resolves once listening.
 */
export function startPlainAppServer(options: {
  /** Each answers its requests and resolves true, else resolves false for the next (`AppRequestHandler`). */
  handlers: readonly ((req: IncomingMessage, res: ServerResponse) => Promise<boolean>)[];
  host: string;
  port: number;
  limits: HttpServerLimits;
  log: Logger;
}): Promise<Server> {
  return listen(options, async (req, res) => {
    try {
      for (const handler of options.handlers) if (await handler(req, res)) return;
    } catch (error) {
      options.log.error({ err: error }, "a request failed");
      if (!res.headersSent) res.writeHead(500).end();
      return;
    }
    if (res.headersSent) return;
    if ((req.url ?? "/").split("?")[0] === githubWebhookPath) {
      res
        .writeHead(404, { "content-type": "text/plain; charset=utf-8" })
        .end("This claim-hold serves a Gitea instance only: GitHub webhooks are not received here.\n");
      return;
    }
    res.writeHead(404).end();
  });
}

/** A Node server with our limits answering with `handle`, each request access-logged; resolves once listening. */
async function listen(
  options: { host: string; port: number; limits: HttpServerLimits; log: Logger },
  handle: (req: IncomingMessage, res: ServerResponse) => unknown,
): Promise<Server> {
  const { host, port, limits } = options;
  const log = options.log.child({ component: "http" });
  const { maxConnections, ...serverOptions } = limits;
  const server = createServer(serverOptions, (req, res) => {
    const started = Date.now();
    res.once("finish", () =>
      log.info(`${req.method} ${req.url} ${res.statusCode} - ${Date.now() - started}ms`),
    );
    void handle(req, res);
  });
  server.maxConnections = maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`port ${port} is already in use; set PORT to another one`, { cause: error })
          : error,
      );
    });
    server.listen({ port, host }, () => resolve());
  });
  const address = server.address();
  log.info(`Listening on http://${host}:${typeof address === "object" && address ? address.port : port}`);
  return server;
}
