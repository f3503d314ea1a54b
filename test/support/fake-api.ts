// A small stateful fake of the claim-hold HTTP API (docs/reference/http-api.md) and of GitHub's issue list, for client and CLI tests.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeActor {
  kind: "agent" | "human";
  login: string;
  runtime?: string;
  sessionId?: string;
  host?: string;
}

interface FakeClaim {
  repo: string;
  issue: number;
  generation: number;
  leaseId: string;
  token: string;
  actor: FakeActor;
  /** The claimant's `actor.sessionKey`: proof for a re-claim, never echoed. */
  sessionKey?: string;
  /** Tokens re-claims rotated out: answered `409 superseded` with reason rotated. */
  rotated: string[];
  taskClass: string;
  branch: string | null;
  /** `active` holds; `stale` answers takeovers; the rest are ended. */
  state: "active" | "stale" | "released" | "completed" | "reaped";
  takeoverPendingBy?: string;
  /** The outcome of the first release, answered again by a repeated one. */
  outcome?: string;
  attested: string[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  /** `X-Claim-Hold-Forge`, only when the client sent it. */
  forge?: string;
  body: unknown;
}

type Scripted = { status: number; body?: unknown; headers?: Record<string, string> } | "reset";

export interface FakeApiOptions {
  heartbeatIntervalSeconds?: number;
  ttlSeconds?: number;
  /** Seconds a takeover waits for the incumbent's grace beat. */
  graceSeconds?: number;
}

export interface FakeApi {
  url: string;
  requests: RecordedRequest[];
  /** GitHub tokens the fake accepts, with the login each one stands for. */
  logins: Map<string, string>;
  /**
   * Open issues served by the fake GitHub `GET /repos/{o}/{r}/issues`, and the candidates of the fake's
   * `claims/next` and `queue` (ranked by a `p0`…`p3` label, then number).
   */
  openIssues: Map<
    string,
    { number: number; title: string; assignees: string[]; pullRequest?: boolean; labels?: string[] }[]
  >;
  /** Answers the next requests to a path (method + path prefix) with these, in order. */
  script(method: string, pathPrefix: string, ...answers: Scripted[]): void;
  /** The current claim of a subject, if any. */
  claimOf(repo: string, issue: number): Readonly<FakeClaim> | undefined;
  /** Another session takes the subject: the old lease gets `409 superseded` from now on. */
  supersede(repo: string, issue: number, by?: Partial<FakeActor>): void;
  /** The holder stops heartbeating: the subject is `stale` and can be taken over. */
  makeStale(repo: string, issue: number): void;
  /** A human assignee the App did not make. */
  holdByHuman(repo: string, issue: number, login: string): void;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

const fail = (res: ServerResponse, status: number, error: string, message: string, details: object = {}) =>
  json(res, status, { error, message, ...details });

export async function startFakeApi(options: FakeApiOptions = {}): Promise<FakeApi> {
  const heartbeatIntervalSeconds = options.heartbeatIntervalSeconds ?? 1;
  const ttlSeconds = options.ttlSeconds ?? 30;
  const graceSeconds = options.graceSeconds ?? 0;
  const claims = new Map<string, FakeClaim>();
  const leases = new Map<string, FakeClaim>();
  const generations = new Map<string, number>();
  const scripts: { method: string; prefix: string; answers: Scripted[] }[] = [];
  const requests: RecordedRequest[] = [];
  const logins = new Map<string, string>([["ghp_agenttoken", "agent-bot"]]);
  const openIssues: FakeApi["openIssues"] = new Map();
  const key = (repo: string, issue: number) => `${repo}#${issue}`;
  const expiresAt = () => new Date(Date.now() + ttlSeconds * 1000).toISOString();

  const mint = (
    repo: string,
    issue: number,
    actor: FakeActor,
    taskClass: string,
    branch: string | null,
    sessionKey?: string,
  ) => {
    const generation = (generations.get(key(repo, issue)) ?? 0) + 1;
    generations.set(key(repo, issue), generation);
    const claim: FakeClaim = {
      repo,
      issue,
      generation,
      leaseId: `1.42.${issue}.${generation}`,
      token: `clh_${randomBytes(32).toString("base64url")}`,
      actor,
      ...(sessionKey ? { sessionKey } : {}),
      rotated: [],
      taskClass,
      branch,
      state: "active",
      attested: [],
    };
    claims.set(key(repo, issue), claim);
    leases.set(claim.leaseId, claim);
    return claim;
  };

  const leaseBody = (claim: FakeClaim) => ({
    id: claim.leaseId,
    subject: key(claim.repo, claim.issue),
    generation: claim.generation,
    token: claim.token,
    taskClass: claim.taskClass,
    branch: claim.branch,
    ttlSeconds,
    heartbeatIntervalSeconds,
    expiresAt: expiresAt(),
  });

  /** Resolves a lease route's token; answers the error itself and returns null when the lease is not usable. */
  const leaseFor = (req: IncomingMessage, res: ServerResponse, leaseId: string): FakeClaim | null => {
    const lease = leases.get(leaseId);
    const token = bearer(req);
    if (lease && token && lease.rotated.includes(token)) {
      fail(res, 409, "superseded", `the token of lease ${leaseId} was rotated by a re-claim`, {
        by: lease.actor,
        generation: lease.generation,
        at: new Date().toISOString(),
        reason: "rotated",
      });
      return null;
    }
    if (!lease || lease.token !== token) {
      fail(res, 401, "unauthorized", "unknown lease or token");
      return null;
    }
    const current = claims.get(key(lease.repo, lease.issue));
    if (current && current !== lease) {
      fail(res, 409, "superseded", `lease ${leaseId} was superseded`, {
        by: current.actor,
        generation: current.generation,
        at: new Date().toISOString(),
      });
      return null;
    }
    return lease;
  };

  /** Like the App's queue: free, unfiltered open issues ranked by priority label then number; the rest counted. */
  const rankQueue = (repo: string, filter: { labels?: string[]; excludeLabels?: string[] }) => {
    const priority = (labels: string[]) => {
      const index = ["p0", "p1", "p2", "p3"].findIndex((p) => labels.includes(p));
      return index === -1 ? 4 : index;
    };
    const counts = { held: 0, human: 0, blocked: 0, prOpen: 0, filtered: 0 };
    const skipped: { issue: number; reason: string }[] = [];
    const stale: { number: number }[] = [];
    const candidates = (openIssues.get(repo) ?? [])
      .filter((issue) => !issue.pullRequest)
      .sort((a, b) => priority(a.labels ?? []) - priority(b.labels ?? []) || a.number - b.number);
    const eligible: { number: number; title: string; rank: number; reasons: string[] }[] = [];
    for (const issue of candidates) {
      const labels = issue.labels ?? [];
      const claim = claims.get(key(repo, issue.number));
      const live = claim && !["released", "completed", "reaped"].includes(claim.state);
      let reason: "held" | "human" | "filtered" | null = null;
      if (live && claim.actor.kind === "human") reason = "human";
      else if (live) reason = "held";
      else if (issue.assignees.length > 0) reason = "human";
      else if (
        !(filter.labels ?? []).every((l) => labels.includes(l)) ||
        (filter.excludeLabels ?? []).some((l) => labels.includes(l))
      )
        reason = "filtered";
      if (reason) {
        counts[reason]++;
        skipped.push({ issue: issue.number, reason });
        if (reason === "held" && claim?.state === "stale") stale.push(issue);
        continue;
      }
      const rankOf = priority(labels);
      eligible.push({
        number: issue.number,
        title: issue.title,
        rank: eligible.length + 1,
        reasons: [...(rankOf < 4 ? [`priority:p${rankOf}`] : []), "oldest"],
      });
    }
    return { eligible, skipped, counts, stale };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const text = await readBody(req);
    const body = text ? JSON.parse(text) : undefined;
    requests.push({
      method: req.method ?? "",
      path: url.pathname + url.search,
      authorization: req.headers.authorization,
      ...(typeof req.headers["x-claim-hold-forge"] === "string"
        ? { forge: req.headers["x-claim-hold-forge"] }
        : {}),
      body,
    });

    const scripted = scripts.find(
      (s) => s.method === req.method && url.pathname.startsWith(s.prefix) && s.answers.length,
    );
    if (scripted) {
      const answer = scripted.answers.shift()!;
      if (answer === "reset") {
        req.socket.destroy();
        return;
      }
      json(res, answer.status, answer.body ?? {}, answer.headers);
      return;
    }

    const route = `${req.method} ${url.pathname}`;
    let match: RegExpExecArray | null;

    if (route === "POST /api/v1/claims") {
      const login = logins.get(bearer(req) ?? "");
      if (!login) return fail(res, 401, "unauthorized", "unknown GitHub token");
      const {
        repo,
        issue,
        actor = {},
        taskClass = "author",
        branch: asked,
        takeover = false,
        leaseToken,
      } = body;
      // Like the App: the asked branch, else the incumbent's (on a takeover), else agent/<session>/<issue>-<slug>.
      const branch: string = asked ?? `agent/${actor.sessionId}/${issue}-work`;
      const { sessionKey, ...shown } = actor as Partial<FakeActor> & { sessionKey?: string };
      const claimant: FakeActor = { kind: "agent", login, ...shown };
      const current = claims.get(key(repo, issue));
      if (!current || ["released", "completed", "reaped"].includes(current.state)) {
        return json(res, 201, {
          lease: leaseBody(mint(repo, issue, claimant, taskClass, branch, sessionKey)),
          resume: null,
          overlaps: [],
        });
      }
      if (current.actor.kind === "human") {
        return fail(res, 409, "human_held", `${key(repo, issue)} is assigned to ${current.actor.login}`, {
          holder: current.actor,
        });
      }
      // Like the App (invariant 14): a re-claim needs the session key or the current token.
      const proven =
        (sessionKey !== undefined && sessionKey === current.sessionKey) || leaseToken === current.token;
      if (current.actor.sessionId && current.actor.sessionId === claimant.sessionId && proven) {
        current.rotated = [...current.rotated, current.token].slice(-4);
        current.token = `clh_${randomBytes(32).toString("base64url")}`;
        if (sessionKey) current.sessionKey = sessionKey;
        current.state = "active";
        return json(res, 200, { lease: leaseBody(current), resume: null, overlaps: [] });
      }
      if (current.state === "stale" && takeover) {
        if (current.takeoverPendingBy !== claimant.sessionId) {
          current.takeoverPendingBy = claimant.sessionId;
          return json(res, 202, {
            status: "takeover_pending",
            retryAfterSeconds: graceSeconds,
            incumbent: current.actor,
          });
        }
        const successor = mint(repo, issue, claimant, taskClass, asked ?? current.branch, sessionKey);
        return json(res, 201, {
          lease: leaseBody(successor),
          resume: {
            previousActor: current.actor,
            previousGeneration: current.generation,
            branch: current.branch,
            lastHeartbeatAt: new Date(Date.now() - 3_600_000).toISOString(),
            linkedPullRequests: [],
          },
          overlaps: [],
        });
      }
      return fail(res, 409, "held", `${key(repo, issue)} is held by ${current.actor.login}`, {
        holder: current.actor,
        generation: current.generation,
        state: current.state,
        lastHeartbeatAt: new Date().toISOString(),
        reclaimableAt: expiresAt(),
      });
    }

    if (route === "POST /api/v1/claims/next") {
      const login = logins.get(bearer(req) ?? "");
      if (!login) return fail(res, 401, "unauthorized", "unknown GitHub token");
      const known = [
        "repo",
        "actor",
        "taskClass",
        "labels",
        "excludeLabels",
        "capabilities",
        "includeTakeovers",
        "scope",
      ];
      const unknown = Object.keys(body ?? {}).find((field) => !known.includes(field));
      if (unknown) return fail(res, 422, "invalid_request", `unknown field ${unknown}`);
      const { repo, actor = {}, taskClass = "author", includeTakeovers = false } = body;
      const { sessionKey, ...shown } = actor as Partial<FakeActor> & { sessionKey?: string };
      const claimant: FakeActor = { kind: "agent", login, ...shown };
      const ranked = rankQueue(repo, body);
      const pick = ranked.eligible.find(() => true);
      const takeover = includeTakeovers ? ranked.stale[0] : undefined;
      if (!pick && takeover) {
        const current = claims.get(key(repo, takeover.number))!;
        const picked = { issue: takeover.number, rank: 1, reasons: ["reclaimable"] };
        if (current.takeoverPendingBy !== claimant.sessionId) {
          current.takeoverPendingBy = claimant.sessionId;
          return json(res, 202, {
            status: "takeover_pending",
            retryAfterSeconds: graceSeconds,
            incumbent: current.actor,
            picked,
          });
        }
      }
      if (!pick) {
        return fail(res, 409, "queue_empty", `no eligible issue in ${repo}`, { skipped: ranked.counts });
      }
      const claim = mint(
        repo,
        pick.number,
        claimant,
        taskClass,
        `agent/${actor.sessionId}/${pick.number}-work`,
        sessionKey,
      );
      return json(res, 201, {
        lease: leaseBody(claim),
        resume: null,
        overlaps: [],
        picked: { issue: pick.number, rank: pick.rank, reasons: pick.reasons },
      });
    }

    match = /^GET \/api\/v1\/repos\/([^/]+)\/([^/]+)\/queue$/.exec(route);
    if (match) {
      if (!logins.has(bearer(req) ?? "")) return fail(res, 401, "unauthorized", "unknown GitHub token");
      const ranked = rankQueue(`${match[1]}/${match[2]}`, {});
      const limit = Number(url.searchParams.get("limit") ?? "50");
      return json(res, 200, {
        queue: ranked.eligible.slice(0, limit).map((c) => ({
          issue: c.number,
          title: c.title,
          rank: c.rank,
          reasons: c.reasons,
        })),
        skipped: ranked.skipped,
        truncated: ranked.eligible.length > limit,
      });
    }

    match = /^POST \/api\/v1\/leases\/([^/]+)\/heartbeat$/.exec(route);
    if (match) {
      const lease = leaseFor(req, res, decodeURIComponent(match[1]!));
      if (!lease) return;
      if (lease.state !== "active" && lease.state !== "stale") {
        return fail(res, 410, "gone", "the lease is gone", { reason: lease.state });
      }
      lease.state = "active";
      lease.takeoverPendingBy = undefined;
      return json(res, 200, { generation: lease.generation, expiresAt: expiresAt(), state: "active" });
    }

    match = /^POST \/api\/v1\/leases\/([^/]+)\/release$/.exec(route);
    if (match) {
      const lease = leaseFor(req, res, decodeURIComponent(match[1]!));
      if (!lease) return;
      if (lease.state === "active" || lease.state === "stale") {
        lease.state = body?.outcome === "completed" ? "completed" : "released";
        lease.outcome = body?.outcome;
      }
      return json(res, 200, { released: true, outcome: lease.outcome, generation: lease.generation });
    }

    match = /^POST \/api\/v1\/leases\/([^/]+)\/attest$/.exec(route);
    if (match) {
      const lease = leaseFor(req, res, decodeURIComponent(match[1]!));
      if (!lease) return;
      if (!/^[0-9a-f]{40}$/.test(body?.sha ?? ""))
        return fail(res, 422, "invalid_request", "sha must be 40 hex");
      if (lease.state !== "active" && lease.state !== "stale") {
        return fail(res, 410, "gone", "the lease is gone", { reason: lease.state });
      }
      lease.attested.push(body.sha);
      return json(res, 200, { attested: true, sha: body.sha, generation: lease.generation });
    }

    match = /^GET \/api\/v1\/leases\/([^/]+)$/.exec(route);
    if (match) {
      const lease = leaseFor(req, res, decodeURIComponent(match[1]!));
      if (!lease) return;
      if (lease.state !== "active" && lease.state !== "stale") {
        return fail(res, 410, "gone", "the lease is gone", { reason: lease.state });
      }
      return json(res, 200, {
        holder: true,
        generation: lease.generation,
        state: lease.state,
        expiresAt: expiresAt(),
      });
    }

    match = /^GET \/api\/v1\/repos\/([^/]+)\/([^/]+)\/claims$/.exec(route);
    if (match) {
      if (!logins.has(bearer(req) ?? "")) return fail(res, 401, "unauthorized", "unknown GitHub token");
      const repo = `${match[1]}/${match[2]}`;
      const rows = [...claims.values()]
        .filter((c) => c.repo === repo && !["released", "completed", "reaped"].includes(c.state))
        .map((c) => ({
          subject: key(c.repo, c.issue),
          state: c.actor.kind === "human" ? "human" : c.state,
          reasons: c.state === "stale" ? ["no-heartbeat"] : [],
          actor: c.actor,
          generation: c.generation,
          taskClass: c.taskClass,
          branch: c.branch,
          lastHeartbeatAt: new Date().toISOString(),
          futureField: "servers may add fields",
        }));
      return json(res, 200, { claims: rows, truncated: false });
    }

    match = /^GET \/api\/v1\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/claim$/.exec(route);
    if (match) {
      if (!logins.has(bearer(req) ?? "")) return fail(res, 401, "unauthorized", "unknown GitHub token");
      const claim = claims.get(key(`${match[1]}/${match[2]}`, Number(match[3])));
      if (!claim) return fail(res, 404, "not_found", "no claim");
      return json(res, 200, {
        subject: key(claim.repo, claim.issue),
        state: claim.state,
        reasons: [],
        actor: claim.actor,
        generation: claim.generation,
        history: [
          { at: new Date().toISOString(), generation: claim.generation, kind: "claimed", actor: claim.actor },
        ],
      });
    }

    match = /^GET \/repos\/([^/]+)\/([^/]+)\/issues$/.exec(route);
    if (match) {
      const page = Number(url.searchParams.get("page") ?? "1");
      const items = (openIssues.get(`${match[1]}/${match[2]}`) ?? []).map((issue) => ({
        number: issue.number,
        title: issue.title,
        assignees: issue.assignees.map((login) => ({ login })),
        ...(issue.pullRequest ? { pull_request: { url: "x" } } : {}),
      }));
      return json(res, 200, page === 1 ? items : []);
    }

    fail(res, 404, "not_found", `no route ${route}`);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error) => fail(res, 500, "internal", String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    logins,
    openIssues,
    script(method, pathPrefix, ...answers) {
      scripts.push({ method, prefix: pathPrefix, answers });
    },
    claimOf: (repo, issue) => claims.get(key(repo, issue)),
    supersede(repo, issue, by = {}) {
      const current = claims.get(key(repo, issue));
      mint(
        repo,
        issue,
        { kind: "agent", login: "other-bot", sessionId: "successor", ...by },
        "author",
        current?.branch ?? null,
      );
    },
    makeStale(repo, issue) {
      const current = claims.get(key(repo, issue));
      if (current) current.state = "stale";
    },
    holdByHuman(repo, issue, login) {
      mint(repo, issue, { kind: "human", login }, "author", null);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function bearer(req: IncomingMessage): string | undefined {
  return /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
