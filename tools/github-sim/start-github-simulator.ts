// Starts the GitHub simulator: one node:http server answering REST, GraphQL and `/_sim/…` control routes.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AppManifestFlow } from "./app-manifest-flow.js";
import { handleControl } from "./control-routes.js";
import { FaultRules, type FieldFault, faultBody } from "./fault-rules.js";
import { GitHubSimulator } from "./github-simulator.js";
import { executeGraphql, type GraphqlBody, githubSchema, inspectGraphql } from "./graphql/execute-graphql.js";
import { RequestLog } from "./request-log.js";
import { AuthError, resolveCaller } from "./resolve-caller.js";
import { errorBody, HttpError, matchRoute, type RestAnswer } from "./rest-routes.js";
import { SimState } from "./sim-state.js";
import type { SimCaller } from "./sim-types.js";
import { WebhookQueue } from "./webhook-queue.js";

export interface GitHubSimulatorOptions {
  /** 0 or absent: a free port. */
  port?: number;
  host?: string;
  /** Where webhooks go, e.g. `http://127.0.0.1:3000/api/github/webhooks`; absent: recorded only. */
  webhookUrl?: string;
  webhookSecret?: string;
  appSlug?: string;
  appId?: number;
  /** The App's key (PEM, public or private): App JWTs must then be signed with it. */
  appKey?: string;
  /** Events the App subscribes to (default: those of app.yml). */
  events?: string[];
  /** The simulator's clock for timestamps and token expiry (default Date.now). */
  now?: () => number;
}

const defaultEvents = [
  "issues",
  "issue_comment",
  "pull_request",
  "push",
  "check_run",
  "check_suite",
  "merge_group",
  "installation",
  "installation_repositories",
  "sub_issues",
  "issue_dependencies",
];

const appPermissions = {
  issues: "write",
  pull_requests: "read",
  checks: "write",
  contents: "read",
  metadata: "read",
  merge_queues: "read",
};

const maxBody = 10 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBody) throw new HttpError(413, "Payload too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): Record<string, unknown> {
  if (!text) return {};
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null ? value : {};
  } catch {
    throw new HttpError(400, "Problems parsing JSON");
  }
}

function send(res: ServerResponse, answer: RestAnswer, headers: Record<string, string>): void {
  const body = answer.text ?? (answer.body === undefined ? "" : JSON.stringify(answer.body));
  res.writeHead(answer.status, {
    ...(answer.body !== undefined ? { "content-type": "application/json; charset=utf-8" } : {}),
    ...headers,
    ...answer.headers,
  });
  res.end(answer.status === 204 ? undefined : body);
}

function callerKind(caller: SimCaller | null): string {
  return caller?.kind ?? "anonymous";
}

export async function startGitHubSimulator(options: GitHubSimulatorOptions = {}): Promise<GitHubSimulator> {
  // Built before listening, so the first GraphQL request does not pay for it.
  githubSchema();
  const host = options.host ?? "127.0.0.1";
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;
  const appId = options.appId ?? 1;
  const events = options.events ?? defaultEvents;
  const webhooks = new WebhookQueue({
    ...(options.webhookUrl ? { url: options.webhookUrl } : {}),
    secret: options.webhookSecret ?? "development",
    appId,
    events,
  });
  const state = new SimState(
    { id: appId, slug: options.appSlug ?? "claim-hold", permissions: appPermissions, events },
    { api: `${url}/api/v3`, web: url },
    options.now ?? Date.now,
    (event, payload) => webhooks.enqueue(event, payload),
  );
  const requests = new RequestLog();
  const faults = new FaultRules();
  const sim = new GitHubSimulator({ state, requests, webhooks, faults, url });
  const rateUsed = new Map<string, number>();
  // The App's key: the one given, or the one a manifest registration made (`/app-manifests/…/conversions`).
  let appKey = options.appKey;
  const manifestFlow = new AppManifestFlow({
    renderApp: () => state.renderApp(),
    register: (registration) => {
      appKey = registration.pem;
      webhooks.configure({
        url: registration.webhookUrl,
        secret: registration.webhookSecret,
        ...(registration.events ? { events: registration.events } : {}),
      });
    },
  });

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: error instanceof Error ? error.message : String(error) }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrival = requests.arrive();
    const arrivedAt = performance.now();
    const requestUrl = new URL(req.url ?? "/", url);
    const method = (req.method ?? "GET").toUpperCase();
    const text = await readBody(req).catch((error: unknown) => {
      if (error instanceof HttpError) return error;
      throw error;
    });
    if (text instanceof HttpError) {
      send(res, { status: text.status, body: errorBody(text) }, {});
      return;
    }
    const rawPath = requestUrl.pathname;

    const registration = manifestFlow.handle(method, rawPath, requestUrl.searchParams, text);
    if (registration) {
      requests.record({
        arrival,
        method,
        path: rawPath,
        route: rawPath.includes("/app-manifests/")
          ? "POST /app-manifests/{code}/conversions"
          : "POST /settings/apps/new",
        caller: "anonymous",
        status: registration.status,
      });
      send(res, registration, {});
      return;
    }

    const control = await handleControl(
      sim,
      method,
      rawPath,
      requestUrl.searchParams,
      text ? safeJson(text) : {},
    );
    if (control) {
      send(res, { status: control.status, body: control.body }, {});
      return;
    }

    const isGraphql = rawPath === "/api/graphql" || rawPath === "/graphql";
    const path = isGraphql ? "/graphql" : rawPath.replace(/^\/api\/v3(?=\/|$)/, "") || "/";
    const headers: Record<string, string> = { "x-github-request-id": randomUUID().toUpperCase() };

    let body: Record<string, unknown> = {};
    let parseError: HttpError | undefined;
    try {
      body = parseJson(text);
    } catch (error) {
      parseError = error as HttpError;
    }
    const matched = isGraphql ? undefined : matchRoute(method, path);
    const info = isGraphql && method === "POST" ? inspectGraphql(body as GraphqlBody) : {};
    const route = isGraphql ? `${method} /graphql` : (matched?.route ?? `${method} ${path}`);
    const entry = {
      arrival,
      method,
      path,
      route,
      ...(info.operationName ? { operationName: info.operationName } : {}),
      ...(info.operationType ? { operationType: info.operationType } : {}),
      ...(info.mutationFields ? { mutationFields: info.mutationFields } : {}),
    };

    let caller: SimCaller | null = null;
    let answer: RestAnswer;
    let faulted = false;
    try {
      const fault = faults.take({ ...entry, body: text });
      if (fault?.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      if (fault?.until) {
        fault.onArrival?.();
        await fault.until;
      }
      if (fault?.status) {
        faulted = true;
        if (fault.applied && !parseError) {
          caller = resolveCaller(req.headers.authorization, state, appKey);
          await (isGraphql ? answerGraphql(method, body, info, caller) : answerRest(caller));
        }
        answer = {
          status: fault.status,
          body: fault.body ?? faultBody(fault.status),
          headers: fault.headers ?? {},
        };
      } else {
        if (parseError) throw parseError;
        caller = resolveCaller(req.headers.authorization, state, appKey);
        answer = isGraphql
          ? await answerGraphql(method, body, info, caller, fault?.field)
          : answerRest(caller);
        if (fault?.field) faulted = true;
      }
    } catch (error) {
      if (error instanceof AuthError) {
        answer = {
          status: 401,
          body: { message: error.message, documentation_url: "https://docs.github.com/rest" },
        };
      } else if (error instanceof HttpError) {
        answer = { status: error.status, body: errorBody(error) };
      } else {
        throw error;
      }
    }
    const token = req.headers.authorization ?? "anonymous";
    const used = (rateUsed.get(token) ?? 0) + 1;
    rateUsed.set(token, used);
    Object.assign(headers, {
      "x-ratelimit-limit": "5000",
      "x-ratelimit-remaining": String(Math.max(0, 5000 - used)),
      "x-ratelimit-used": String(used),
      "x-ratelimit-reset": String(Math.floor(state.now() / 1000) + 3600),
      "x-ratelimit-resource": isGraphql ? "graphql" : "core",
    });
    requests.record({
      ...entry,
      caller: callerKind(caller),
      status: answer.status,
      ...(faulted ? { fault: true } : {}),
      answeredAt: Date.now(),
      serverMs: performance.now() - arrivedAt,
    });
    send(res, answer, headers);

    function answerRest(who: SimCaller | null): RestAnswer {
      if (!matched) throw new HttpError(404, "Not Found");
      return matched.handler(
        {
          method,
          path,
          params: matched.params,
          query: requestUrl.searchParams,
          body,
          headers: req.headers,
          caller: who,
          url: `${url}${rawPath}`,
        },
        state,
      );
    }
  }

  async function answerGraphql(
    method: string,
    body: Record<string, unknown>,
    info: ReturnType<typeof inspectGraphql>,
    caller: SimCaller | null,
    fieldFault?: FieldFault,
  ): Promise<RestAnswer> {
    if (method !== "POST") throw new HttpError(404, "Not Found");
    if (!caller) throw new AuthError("This endpoint requires you to be authenticated.");
    if (caller.kind === "app") throw new HttpError(403, "Resource not accessible by integration");
    const result = await executeGraphql(
      body as GraphqlBody,
      info,
      { state, caller, viewer: caller.user },
      fieldFault,
    );
    return { status: 200, body: result };
  }

  sim.onClose(
    () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  );
  return sim;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
