// A small Gitea (REST v1) on node:http: in-memory state, every request logged, and webhooks signed and delivered as Gitea sends them.
import { createHmac, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type GiteaFault,
  GiteaFaultRules,
  type GiteaFaultSpec,
  type GiteaRequestMatch,
} from "./fault-rules.js";
import { GiteaSimState, type SimIssue, type SimRepo } from "./gitea-state.js";
import { branchFilterMatches, branchOfDelivery, type GiteaPayloads, giteaPayloads } from "./hook-payloads.js";
import { matchRoute } from "./rest-routes.js";
import {
  type GiteaAssigneeChange,
  type GiteaPeople,
  giteaPeople,
  hookEventsOfWrite,
  type IssueBefore,
} from "./sim-people.js";
import { GiteaWebhookQueue } from "./webhook-queue.js";

export interface LoggedGiteaRequest {
  method: string;
  /** Under `/api/v1`, without the query. */
  path: string;
  /** The swagger route it matched (`GET /repos/{owner}/{repo}/issues/{index}`), or `unmatched`. */
  route: string;
  query: string;
  caller: string | null;
  status: number;
  /** Its place in arrival order (it is logged once answered; a held request arrives before it is logged). */
  arrival: number;
}

export interface GiteaSimulator {
  url: string;
  state: GiteaSimState;
  requests: LoggedGiteaRequest[];
  /** Requests logged since `mark` (an index into `requests`), as `METHOD route`. */
  routesSince(mark: number): string[];
  /** The next request on `route` (`POST /repos/{owner}/{repo}/issues/{index}/comments`) is answered `status`, changing nothing. */
  failNext(route: string, status: number): void;
  /** The next `times` (default 1) matching requests fail with `status`, answer after `delayMs`, or wait for `until`. */
  fail(spec: GiteaFaultSpec): GiteaFault;
  /** Holds the next matching request, neither carried out nor answered, until `release()`; `arrived` once it is here. */
  hold(match: GiteaRequestMatch): { arrived: Promise<void>; release(): void; fault: GiteaFault };
  clearFaults(): void;
  /** How many requests have arrived so far (a mark for `arrivedSince`). */
  arrivalMark(): number;
  /** Logged requests that arrived after `mark`. */
  arrivedSince(mark: number): LoggedGiteaRequest[];
  /** The repository hook's deliveries: every change the REST API or `people` makes, queued in order. */
  webhooks: GiteaWebhookQueue;
  /** Points the repository hook at the App (`POST {url}`, signed with `secret`). */
  hook(url: string, secret: string): void;
  /** People acting in Gitea's web UI: the change, then its webhook. */
  people: GiteaPeople;
  assigneeChanges: GiteaAssigneeChange[];
  /** Builds the payload of a Gitea event (modules/structs shapes). */
  payloads: GiteaPayloads;
  /** POSTs a payload to `url` signed with `secret`, with Gitea's (and optionally Forgejo's) headers. */
  deliver(target: {
    url: string;
    secret: string;
    /** `X-Gitea-Event`: the event's group (`issues` for a label or assignee change too). */
    event: string;
    /** `X-Gitea-Event-Type`: the precise kind (`issue_label`); default the event. */
    eventType?: string;
    payload: unknown;
    deliveryId?: string;
    forgejo?: boolean;
  }): Promise<{ status: number; body: unknown; deliveryId: string }>;
  /**
   * Delivers an event as Gitea does to `repo`'s registered hooks: each active one whose events hold
   * the event type, at its URL, signed with its own secret; one answer per hook.
   */
  deliverToHooks(
    repo: SimRepo,
    delivery: { event: string; eventType?: string; payload: unknown; forgejo?: boolean },
  ): Promise<{ hookId: number; status: number; body: unknown; deliveryId: string }[]>;
  close(): Promise<void>;
}

export async function startGiteaSimulator(options: { now?: () => number } = {}): Promise<GiteaSimulator> {
  const state = new GiteaSimState(options.now ?? Date.now);
  const requests: LoggedGiteaRequest[] = [];
  const faults = new GiteaFaultRules();
  const assigneeChanges: GiteaAssigneeChange[] = [];
  let arrivals = 0;
  const server: Server = createServer((req, res) => {
    void answer(req).then(({ status, body, text, entry }) => {
      requests.push({ ...entry, status });
      if (status === 204) {
        res.writeHead(204).end();
      } else if (text !== undefined) {
        res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(text);
      } else {
        res.writeHead(status, { "content-type": "application/json;charset=utf-8" }).end(JSON.stringify(body));
      }
    });
  });

  async function answer(req: IncomingMessage) {
    const url = new URL(req.url ?? "/", "http://gitea.invalid");
    const method = req.method ?? "GET";
    const path = url.pathname.replace(/^\/api\/v1/, "");
    const token = /^token (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    const caller = token ? (state.tokens.get(token) ?? null) : null;
    const matched = matchRoute(method, path);
    const entry = {
      method,
      path,
      route: matched ? `${method} ${matched.route.path}` : "unmatched",
      query: url.search,
      caller,
      arrival: ++arrivals,
    };
    const raw = await readText(req);
    if (!url.pathname.startsWith("/api/v1/") || !matched) {
      return { status: 404, body: { message: "not found" }, entry };
    }
    if (caller === null) return { status: 401, body: { message: "token is required" }, entry };
    const target = issueOf(matched.params);
    const fault = faults.take({ method, route: entry.route, issue: target?.issue.number ?? null });
    if (fault?.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (fault?.until) {
      fault.onArrival?.();
      await fault.until;
    }
    if (fault?.status && !fault.applied) {
      return { status: fault.status, body: { message: "simulated failure" }, entry };
    }
    let body: Record<string, unknown> = {};
    if (raw) {
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return { status: 422, body: { message: "invalid JSON" }, entry };
      }
    }
    const before: IssueBefore | null = target
      ? { assignees: [...target.issue.assignees], state: target.issue.state }
      : null;
    const reply = matched.route.answer({
      state,
      params: matched.params,
      query: url.searchParams,
      body,
      caller,
    });
    if (target && method !== "GET" && reply.status < 300)
      for (const event of hookEventsOfWrite(entry.route, target, before, body, caller))
        people.emit(target.repo, target.issue, caller, event);
    if (entry.route === "POST /repos/{owner}/{repo}/statuses/{sha}" && reply.status < 300)
      emitStatus(matched.params);
    if (fault?.status) return { status: fault.status, body: { message: "simulated failure" }, entry };
    return { ...reply, entry };
  }

  /** Gitea's `status` event for the status just written (`CreateCommitStatus` notifies the hooks). */
  function emitStatus(params: Record<string, string>) {
    const repo = state.repo(params.owner ?? "", params.repo ?? "");
    const status = repo?.statuses.get(params.sha ?? "")?.at(-1);
    if (repo && status) webhooks.enqueue("status", "status", payloads.status(repo, params.sha ?? "", status));
  }

  /** The issue a route is about: `{index}`, or the issue of comment `{id}`. */
  function issueOf(params: Record<string, string>): { repo: SimRepo; issue: SimIssue } | null {
    const repo = state.repo(params.owner ?? "", params.repo ?? "");
    if (!repo) return null;
    if (params.index !== undefined) {
      const issue = repo.issues.find((i) => i.number === Number(params.index));
      return issue ? { repo, issue } : null;
    }
    if (params.id !== undefined) {
      const issue = repo.issues.find((i) => i.comments.some((c) => c.id === Number(params.id)));
      return issue ? { repo, issue } : null;
    }
    return null;
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.baseUrl = url;
  const payloads = giteaPayloads(state);
  const webhooks = new GiteaWebhookQueue(async (delivery, hook) => {
    const sent = await deliver({
      ...hook,
      event: delivery.event,
      eventType: delivery.eventType,
      payload: delivery.payload,
      deliveryId: delivery.guid,
    });
    return sent.status;
  });
  const people = giteaPeople(state, payloads, webhooks, assigneeChanges);
  async function deliver(target: Parameters<GiteaSimulator["deliver"]>[0]) {
    const body = JSON.stringify(target.payload);
    const deliveryId = target.deliveryId ?? randomUUID();
    const signature = createHmac("sha256", target.secret).update(body).digest("hex");
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-gitea-event": target.event,
      "x-gitea-event-type": target.eventType ?? target.event,
      "x-gitea-delivery": deliveryId,
      "x-gitea-signature": signature,
      // Gitea signs for GitHub-compatible receivers too.
      "x-hub-signature-256": `sha256=${signature}`,
      ...(target.forgejo
        ? {
            "x-forgejo-event": target.event,
            "x-forgejo-delivery": deliveryId,
            "x-forgejo-signature": signature,
          }
        : {}),
    };
    const response = await fetch(target.url, { method: "POST", headers, body });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null, deliveryId };
  }
  const simulator: GiteaSimulator = {
    url,
    state,
    requests,
    routesSince: (mark) => requests.slice(mark).map((r) => r.route),
    failNext: (route, status) => {
      faults.add({ route, status });
    },
    async deliverToHooks(repo, delivery) {
      const type = delivery.eventType ?? delivery.event;
      const answers = [];
      const branch = branchOfDelivery(delivery.event, delivery.payload);
      const hooks = repo.hooks.filter(
        (h) =>
          h.active &&
          h.events.includes(type) &&
          (branch === null || branchFilterMatches(h.branchFilter, branch)),
      );
      for (const hook of hooks) {
        const answer = await simulator.deliver({ ...delivery, url: hook.url, secret: hook.secret });
        answers.push({ hookId: hook.id, ...answer });
      }
      return answers;
    },
    fail: (spec) => faults.add(spec),
    hold(match) {
      let release!: () => void;
      let arrive!: () => void;
      const until = new Promise<void>((resolve) => {
        release = resolve;
      });
      const arrived = new Promise<void>((resolve) => {
        arrive = resolve;
      });
      const fault = faults.add({ ...match, until, onArrival: arrive, times: 1 });
      return { arrived, release, fault };
    },
    clearFaults: () => faults.clear(),
    arrivalMark: () => arrivals,
    arrivedSince: (mark) => requests.filter((r) => r.arrival > mark),
    webhooks,
    hook(url, secret) {
      webhooks.target = { url, secret };
    },
    people,
    assigneeChanges,
    payloads,
    deliver,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
  return simulator;
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}
