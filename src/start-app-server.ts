// The App's HTTP server for a normal start: Probot's middleware on a Node server whose slow-client and
// header limits are ours (Probot's `run()` hides its server, which keeps Node's 300 s / 60 s defaults).
import { createServer, type Server } from "node:http";
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
  const { probot, appFn, host, port, limits } = options;
  const log = options.log.child({ component: "http" });
  const middleware = await createNodeMiddleware(appFn, { probot });
  const { maxConnections, ...serverOptions } = limits;
  const server = createServer(serverOptions, (req, res) => {
    const started = Date.now();
    res.once("finish", () =>
      log.info(`${req.method} ${req.url} ${res.statusCode} - ${Date.now() - started}ms`),
    );
    void middleware(req, res, () => {
      if (!res.headersSent) res.writeHead(404).end();
    });
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
