// The App's Octokit with production throttling, on a fake clock: GraphQL queries never wait for the write limiter; mutations and REST writes still go one a second, and rate-limited answers are still retried.
import { createServer, type IncomingMessage } from "node:http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createClaimHoldOctokit } from "../src/providers/github/claim-hold-octokit.js";

// The real timers, kept before any test fakes them.
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const start = Date.parse("2026-12-01T12:00:00Z");

interface Arrival {
  /** The GraphQL operation's name, or the REST route. */
  operation: string;
  /** Milliseconds on the fake clock since the test began. */
  at: number;
}
interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** GitHub at the HTTP layer: logs each request on the fake clock; answers 200 unless a test queued an answer for the operation. */
function startGitHubFake() {
  const arrivals: Arrival[] = [];
  const queued = new Map<string, Answer[]>();
  const server = createServer(async (req, res) => {
    const operation = await operationOf(req);
    arrivals.push({ operation, at: Date.now() - start });
    const answer = queued.get(operation)?.shift() ?? {
      status: 200,
      body: operation.startsWith("POST /repos") ? { id: 1 } : { data: { ok: true } },
    };
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(JSON.stringify(answer.body));
  });
  return {
    server,
    arrivals,
    answerNext(operation: string, answer: Answer) {
      queued.set(operation, [...(queued.get(operation) ?? []), answer]);
    },
  };
}

async function operationOf(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += chunk;
  if (req.url !== "/graphql") return `${req.method} ${req.url}`;
  const { query } = JSON.parse(body) as { query: string };
  return /\b(?:query|mutation)\s+(\w+)/.exec(query)?.[1] ?? "anonymous";
}

/**
 * Fakes the clock for every wait (Bottleneck's spacing, its rate-limit retries) but not for the yields
 * of a zero-delay timer, which Bottleneck takes at each step and which must run while the clock stands
 * still (the fake clock would put each one 1 ms later).
 */
function fakeTheClockForWaits(): () => void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: start });
  const fakeSetTimeout = globalThis.setTimeout;
  const fakeClearTimeout = globalThis.clearTimeout;
  const yields = new WeakSet<object>();
  globalThis.setTimeout = ((callback: () => void, ms?: number, ...args: unknown[]) => {
    if (ms) return fakeSetTimeout(callback, ms, ...args);
    const handle = realSetTimeout(callback, 0, ...args);
    yields.add(handle as unknown as object); // a Timeout object in Node
    return handle;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) =>
    typeof handle === "object" && handle !== null && yields.has(handle)
      ? realClearTimeout(handle)
      : fakeClearTimeout(handle)) as typeof clearTimeout;
  return () => {
    globalThis.setTimeout = fakeSetTimeout;
    globalThis.clearTimeout = fakeClearTimeout;
    vi.useRealTimers();
  };
}

/**
 * Lets the App run, the clock standing still, until `done()`; throws if it never comes true (what a
 * request held for a later time does). Each turn is a millisecond of real time for sockets to work in.
 */
async function settle(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 3000; turn++) {
    if (done()) return;
    await new Promise((resolve) => realSetTimeout(resolve, 1));
  }
  throw new Error("still waiting with the clock standing still");
}

/** Moves the clock by `ms`, then lets the App run at the new time until `done()`. */
async function advance(ms: number, done: () => boolean): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await settle(done);
}

describe("GitHub's write limiter (production throttling, fake clock)", () => {
  const github = startGitHubFake();
  let baseUrl = "";
  let octokitId = 0;
  let realTime = () => {};
  const Octokit = createClaimHoldOctokit();
  /** A client with a limiter key of its own (one per installation in the App), as Probot builds them. */
  const installationClient = () =>
    new Octokit({ baseUrl, throttle: { id: `installation-${++octokitId}` }, log });
  /** What the clients warned of: each rate-limit answer, once the client has decided to retry it or not. */
  const warnings: string[] = [];
  const log = { debug() {}, info() {}, warn: (message: string) => warnings.push(message), error() {} };
  const settled = <T>(promises: Promise<T>[]) => {
    let count = 0;
    for (const promise of promises)
      promise.then(
        () => count++,
        () => count++,
      );
    return () => count === promises.length;
  };
  const byOperation = (a: Arrival, b: Arrival) => a.operation.localeCompare(b.operation);
  const times = (operation: string) =>
    github.arrivals.filter((a) => a.operation === operation).map((a) => a.at);

  beforeAll(async () => {
    await new Promise<void>((resolve) => github.server.listen(0, "127.0.0.1", resolve));
    const address = github.server.address();
    baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => github.server.close(() => resolve())));
  beforeEach(() => {
    realTime = fakeTheClockForWaits();
    github.arrivals.length = 0;
    warnings.length = 0;
  });
  afterEach(() => realTime());

  it("sends five GraphQL queries of one installation at once, the clock never moving", async () => {
    const octokit = installationClient();
    const reads = [1, 2, 3, 4, 5].map((n) =>
      octokit.graphql(
        `query Read${n}($n: Int!) { repository(owner: "o", name: "r") { issue(number: $n) { id } } }`,
        { n },
      ),
    );
    await settle(settled(reads));
    await expect(Promise.all(reads)).resolves.toEqual(Array(5).fill({ ok: true }));
    // Concurrent queries may reach the server in any order: the set and the times are the promise.
    expect([...github.arrivals].sort(byOperation)).toEqual(
      [1, 2, 3, 4, 5].map((i) => ({ operation: `Read${i}`, at: 0 })),
    );
  });

  it("still sends mutations and REST writes of one installation one a second, queries passing them by", async () => {
    const octokit = installationClient();
    const writes = [
      octokit.graphql("mutation Write1 { addComment(input: {}) { clientMutationId } }"),
      octokit.graphql("mutation Write2 { addComment(input: {}) { clientMutationId } }"),
      octokit.request("POST /repos/{owner}/{repo}/labels", { owner: "o", repo: "r", name: "agent:claimed" }),
    ];
    const read = octokit.graphql("query ReadBeside { viewer { login } }");
    await settle(() => github.arrivals.length === 2);
    expect(github.arrivals.map((a) => a.operation).sort()).toEqual(["ReadBeside", "Write1"]);

    await advance(999, settled([read]));
    expect(github.arrivals.length).toBe(2);
    await advance(1, () => github.arrivals.length === 3);
    await advance(1_000, settled(writes));
    await Promise.all(writes);
    expect(github.arrivals.slice(0, 2).sort(byOperation)).toEqual([
      { operation: "ReadBeside", at: 0 },
      { operation: "Write1", at: 0 },
    ]);
    expect(github.arrivals.slice(2)).toEqual([
      { operation: "Write2", at: 1_000 },
      { operation: "POST /repos/o/r/labels", at: 2_000 },
    ]);
  });

  it("spaces writes per installation: two installations' first mutations go at once", async () => {
    const [one, two] = [installationClient(), installationClient()];
    const writes = [one, two, one].map((octokit, i) =>
      octokit.graphql(`mutation Write${i} { addComment(input: {}) { clientMutationId } }`),
    );
    await settle(() => github.arrivals.length === 2);
    await advance(1_000, settled(writes));
    expect([times("Write0"), times("Write1"), times("Write2")]).toEqual([[0], [0], [1_000]]);
  });

  it("retries a query and a mutation once after a short secondary rate limit, the query without the write limiter", async () => {
    const octokit = installationClient();
    const secondary: Answer = {
      status: 403,
      body: { message: "You have exceeded a secondary rate limit. Please wait a few minutes." },
      headers: { "retry-after": "1" },
    };
    github.answerNext("Limited", secondary);
    github.answerNext("LimitedWrite", secondary);
    const read = octokit.graphql("query Limited { viewer { login } }");
    const write = octokit.graphql("mutation LimitedWrite { addComment(input: {}) { clientMutationId } }");
    // Both answers handled (the retries are due 1 s from now) before the clock moves.
    await settle(() => warnings.length === 2);
    expect(warnings).toEqual(
      Array(2).fill('Secondary rate limit hit with "POST /graphql": retrying once in 1 s'),
    );
    await advance(1_000, settled([read, write]));
    await expect(read).resolves.toEqual({ ok: true });
    await expect(write).resolves.toEqual({ ok: true });
    expect([times("Limited"), times("LimitedWrite")]).toEqual([
      [0, 1_000],
      [0, 1_000],
    ]);
  });

  it("retries a query GitHub answers with RATE_LIMITED once the rate limit resets", async () => {
    const octokit = installationClient();
    github.answerNext("Exhausted", {
      status: 200,
      body: { data: null, errors: [{ type: "RATE_LIMITED", message: "API rate limit exceeded" }] },
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(start / 1000 + 2) },
    });
    const read = octokit.graphql("query Exhausted { viewer { login } }");
    await settle(() => warnings.length === 1);
    expect(warnings).toEqual(['Rate limit hit with "POST /graphql": retrying once in 3 s']);
    // The plugin waits until a second after the reset: 2 s + 1 s.
    await advance(2_999, () => true);
    expect(github.arrivals.length).toBe(1);
    await advance(1, settled([read]));
    await expect(read).resolves.toEqual({ ok: true });
    expect(times("Exhausted")).toEqual([0, 3_000]);
  });
});
