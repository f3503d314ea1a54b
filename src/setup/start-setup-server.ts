// Setup mode: with no App credentials the process serves claim-hold's setup page, turns GitHub's
// manifest code into credentials in `.env`, and answers the health probes; nothing else runs.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { request } from "@octokit/request";
import type { Logger } from "pino";
import { parse as parseYaml } from "yaml";
import type { HttpServerLimits } from "../start-app-server.js";
import { mergeEnvFile } from "./merge-env-file.js";
import { escapeHtml, noWebhookWarning, renderSetupPage, renderUnsavedPage } from "./render-setup-page.js";
import { type AppYml, callbackPath, setupManifestOf, webhookTargetOf } from "./setup-manifest.js";

/** The package's root (`src/setup/` and `dist/setup/` are both two levels down): app.yml and the docs. */
const packageRoot = new URL("../../", import.meta.url);

/** The documents the page links to, served as plain text from the package when it carries them. */
const docs: Record<string, string> = {
  "/setup/docs/README.md": "README.md",
  "/setup/docs/deploy.md": "docs/deploy.md",
};

export interface SetupServerOptions {
  host: string;
  port: number;
  publicUrl?: string;
  /** Register the App under this organisation (`GH_ORG`) rather than the signed-in user. */
  org?: string;
  webhookProxyUrl?: string;
  /** GitHub's web origin (`https://github.com`, or the GHE host's). */
  githubWebUrl: string;
  /** GitHub's REST base (`https://api.github.com`, or `<GHE>/api/v3`). */
  githubApiUrl: string;
  /** Where the new App's credentials are merged (`.env` in the working directory). */
  envFile: string;
  /** Slow-client and header limits, as for the App's own server. */
  limits?: HttpServerLimits;
  log: Logger;
}

function originOf(req: IncomingMessage): string {
  const forwarded = req.headers["x-forwarded-proto"];
  const proto = (typeof forwarded === "string" ? forwarded.split(",")[0]?.trim() : undefined) || "http";
  return `${proto}://${req.headers["x-forwarded-host"] ?? req.headers.host ?? "localhost"}`;
}

/**
 * The host names the page and its callback answer to: loopback, the listen address when it is a
 * specific one, and the public URL's host. Any other Host header is a DNS-rebinding page that could
 * read the state off the page and complete a registration of its own App into `.env`.
 */
function setupHostsOf(options: { host: string; publicUrl?: string }): Set<string> {
  const hosts = new Set(["localhost", "127.0.0.1", "[::1]"]);
  if (!["0.0.0.0", "::", "[::]", ""].includes(options.host)) hosts.add(options.host.toLowerCase());
  if (options.publicUrl) hosts.add(new URL(options.publicUrl).hostname.toLowerCase());
  return hosts;
}

function hostnameOf(req: IncomingMessage): string {
  try {
    return new URL(`http://${req.headers.host ?? ""}`).hostname.toLowerCase();
  } catch {
    return "";
  }
}

function sendText(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": `${type}; charset=utf-8`, "cache-control": "no-store" }).end(body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, "application/json", JSON.stringify(body));
}

/** The credentials GitHub made for the registered App, in `.env` names. */
async function convertCode(apiUrl: string, code: string) {
  const { data } = await request("POST /app-manifests/{code}/conversions", { baseUrl: apiUrl, code });
  return {
    app: { id: data.id, slug: data.slug, htmlUrl: data.html_url },
    env: {
      APP_ID: String(data.id),
      PRIVATE_KEY: data.pem,
      ...(data.webhook_secret ? { WEBHOOK_SECRET: data.webhook_secret } : {}),
      GITHUB_CLIENT_ID: data.client_id,
      GITHUB_CLIENT_SECRET: data.client_secret,
    },
  };
}

/** One route of the setup server: answers and returns true, or returns false for the next. */
type SetupHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;

const healthHandler: SetupHandler = (_req, res, url) => {
  if (url.pathname === "/healthz") sendJson(res, 200, { status: "ok" });
  else if (url.pathname === "/readyz")
    sendJson(res, 503, { status: "not_ready", checks: { credentials: "missing" } });
  else return false;
  return true;
};

const docsHandler: SetupHandler = async (_req, res, url) => {
  const doc = docs[url.pathname];
  const text = doc ? await readFile(new URL(doc, packageRoot), "utf8").catch(() => undefined) : undefined;
  if (text === undefined) return false;
  sendText(res, 200, "text/plain", text);
  return true;
};

/** Starts the setup server; resolves once it listens. */
export async function startSetupServer(options: SetupServerOptions): Promise<Server> {
  const log = options.log.child({ component: "setup" });
  const appYml = parseYaml(await readFile(new URL("app.yml", packageRoot), "utf8")) as AppYml;
  const target = webhookTargetOf(options);
  let registered: { slug?: string | undefined; htmlUrl: string } | undefined;
  // GitHub hands `state` back with the code: a callback without it did not start on this page (a
  // forged link would otherwise plant someone else's App credentials in `.env`). New after each use.
  let state = randomBytes(16).toString("hex");
  const setupHosts = setupHostsOf(options);
  const newAppPath = options.org
    ? `/organizations/${encodeURIComponent(options.org)}/settings/apps`
    : "/settings/apps";

  const foreignHostHandler: SetupHandler = (req, res, url) => {
    if (url.pathname !== "/" && url.pathname !== callbackPath) return false;
    if (setupHosts.has(hostnameOf(req))) return false;
    sendText(
      res,
      421,
      "text/plain",
      "setup answers only on localhost, the listen address or CLAIM_HOLD_PUBLIC_URL's host",
    );
    return true;
  };

  const pageHandler: SetupHandler = (req, res, url) => {
    if (url.pathname !== "/") return false;
    if (registered) {
      const install = escapeHtml(`${registered.htmlUrl}/installations/new`);
      sendText(
        res,
        200,
        "text/html",
        `<!doctype html><title>claim-hold registered</title><p>The App is registered and its credentials are in <code>${escapeHtml(options.envFile)}</code>. <a href="${install}">Install it</a>, then restart claim-hold.</p>`,
      );
      return true;
    }
    const manifest = setupManifestOf({
      appYml,
      target,
      origin: originOf(req),
      ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    });
    const createAppUrl = `${options.githubWebUrl}${newAppPath}/new?state=${state}`;
    sendText(
      res,
      200,
      "text/html",
      renderSetupPage({ manifest, createAppUrl, target, envFile: options.envFile }),
    );
    return true;
  };

  const callbackHandler: SetupHandler = async (_req, res, url) => {
    if (url.pathname !== callbackPath) return false;
    const code = url.searchParams.get("code");
    if (!code || url.searchParams.get("state") !== state) {
      sendText(res, 400, "text/plain", "code or state missing or stale: start from the setup page");
      return true;
    }
    // One use per state, whatever GitHub answers.
    state = randomBytes(16).toString("hex");
    let converted: Awaited<ReturnType<typeof convertCode>>;
    try {
      converted = await convertCode(options.githubApiUrl, code);
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      log.error(
        `GitHub did not turn the manifest code into credentials${typeof status === "number" ? ` (HTTP ${status})` : ""}`,
      );
      sendText(
        res,
        502,
        "text/plain",
        "GitHub did not turn the code into credentials; register again from the setup page.",
      );
      return true;
    }
    try {
      mergeEnvFile(options.envFile, converted.env);
    } catch (error) {
      // The App exists on GitHub now; its key is lost with this answer, but GitHub makes new ones.
      const reason = (error as NodeJS.ErrnoException).code ?? "write failed";
      const settings = `${options.githubWebUrl}${newAppPath}/${converted.app.slug ?? ""}`;
      log.error(
        `Registered the GitHub App ${converted.app.slug ?? ""} (id ${converted.app.id}) but could not write ${options.envFile} (${reason}): generate a private key and set a webhook secret on ${settings}, then set APP_ID, PRIVATE_KEY and WEBHOOK_SECRET yourself`,
      );
      sendText(
        res,
        500,
        "text/html",
        renderUnsavedPage({ appId: converted.app.id, settings, envFile: options.envFile, reason }),
      );
      return true;
    }
    registered = converted.app;
    log.info(
      `Registered the GitHub App ${converted.app.slug ?? ""} (id ${converted.app.id}); its credentials are in ${options.envFile}. Install it, then restart claim-hold.`,
    );
    const install = `${converted.app.htmlUrl}/installations/new`;
    res
      .writeHead(302, { location: install, "content-type": "text/plain" })
      .end(`Found. Redirecting to ${install}`);
    return true;
  };

  const handlers = [healthHandler, foreignHostHandler, pageHandler, callbackHandler, docsHandler];
  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== "GET" && req.method !== "HEAD")
      return sendText(res, 405, "text/plain", "method not allowed");
    for (const handler of handlers) if (await handler(req, res, url)) return;
    sendText(res, 404, "text/plain", "not found");
  }

  const { maxConnections, ...serverOptions } = options.limits ?? {};
  const server = createServer(serverOptions, (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://setup.invalid");
    } catch {
      return sendText(res, 400, "text/plain", "bad request");
    }
    // One line per request, never headers or the query (the callback's code is a one-time credential).
    res.once("finish", () => log.debug(`${req.method} ${url.pathname} ${res.statusCode}`));
    route(req, res, url).catch((error: unknown) => {
      log.error(`setup request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) sendText(res, 500, "text/plain", "internal error");
      else res.end();
    });
  });
  if (maxConnections !== undefined) server.maxConnections = maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`port ${options.port} is already in use; set PORT to another one`)
          : error,
      ),
    );
    server.listen({ port: options.port, host: options.host }, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const pageHost = setupHostsOf({ host: options.host }).has(options.host.toLowerCase())
    ? options.host
    : "localhost";
  log.info(`No GitHub App credentials: open http://${pageHost}:${port}/ to register claim-hold on GitHub`);
  if (target.source === "none") log.warn(noWebhookWarning);
  else
    log.info(
      `The App's webhooks will go to ${target.source === "public-url" ? target.url : `the forwarding channel at ${new URL(target.url ?? "").host}`}`,
    );
  return server;
}
