// The failed-auth limiter (docs/reference/http-api.md#authentication) over HTTP: it slows guessing from an address, never a valid credential.
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../src/config/env.js";
import { clientAddressOf } from "../src/http/client-address.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import type { Stores } from "../src/providers/stores.js";
import { type AppHarness, startApp, testAdminToken } from "./support/app-harness.js";
import {
  agent,
  agentToken,
  GitHubRequestLog,
  nockCreateInstallationToken,
  nockGetCollaboratorPermission,
  nockGetRepoInstallation,
  nockGetUser,
  otherAgent,
  otherAgentToken,
} from "./support/github-fake/index.js";
import { type SeededClaim, seedAgentClaim } from "./support/seed-claims.js";

const T0 = Date.parse("2026-11-29T10:00:00Z");
const repo = "octo/widgets";
const wrongLeaseToken = `clh_${"x".repeat(43)}`;
/** The limiter's threshold: failures past it from one address within a minute are refused. */
const maxFailures = 20;

let app: AppHarness | undefined;
let stores: Stores;
/** A live claim in the store: wrong tokens for it are refused by the store alone (no recovery from GitHub). */
let lease: SeededClaim;
let github: GitHubRequestLog;

beforeEach(() => {
  stores = createMemoryStores({ now: () => T0 });
  github = new GitHubRequestLog();
});

afterEach(async () => {
  await app?.close();
  app = undefined;
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

async function boot(options: { trustProxyHops?: number } = {}): Promise<AppHarness> {
  app = await startApp({ stores, now: T0, adminToken: testAdminToken, ...options });
  lease = await seedLease();
  return app;
}

async function seedLease(): Promise<SeededClaim> {
  return seedAgentClaim(stores, {
    key: { installationId: 42, repoId: 1296269, issue: 12 },
    repo,
    actor: { login: agent.login, runtime: "claude-code", sessionId: "sessA" },
    now: T0,
  });
}

async function heartbeat(leaseId: string, token: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${app!.url}/api/v1/leases/${leaseId}/heartbeat`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
    body: "{}",
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    retryAfter: response.headers.get("retry-after"),
  };
}

async function claim(token: string) {
  const response = await fetch(`${app!.url}/api/v1/claims`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ repo, issue: 12, actor: { sessionId: "sessA" }, taskClass: "author" }),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    retryAfter: response.headers.get("retry-after"),
  };
}

/** Drives `count` failed lease authentications from the test's address (or the forwarded one). */
async function failLeaseAuth(count: number, headers: Record<string, string> = {}): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    statuses.push((await heartbeat(lease.leaseId, wrongLeaseToken, headers)).status);
  }
  return statuses;
}

describe("failed-auth limiter", () => {
  it("answers the valid holder's heartbeat with 200 after 25 bad lease tokens from its address, and a bad one still with 429", async () => {
    await boot();
    const statuses = await failLeaseAuth(25);
    expect(statuses).toEqual([...Array(maxFailures).fill(401), ...Array(5).fill(429)]);

    const beat = await heartbeat(lease.leaseId, lease.token);
    expect(beat).toMatchObject({ status: 200, body: { generation: 1, state: "active" } });
    const verify = await fetch(`${app!.url}/api/v1/leases/${lease.leaseId}`, {
      headers: { authorization: `Bearer ${lease.token}` },
    });
    expect(verify.status).toBe(200);

    const refused = await heartbeat(lease.leaseId, wrongLeaseToken);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: "rate_limited", message: expect.any(String) });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(github.count()).toBe(0);
  });

  it("answers a limited address's lease call for a subject the store does not hold with 429, without asking GitHub to recover it", async () => {
    await boot();
    await failLeaseAuth(maxFailures);
    // Store-lost subjects are recovered from their claim comments: a GitHub read a guess must not buy.
    const guessed = await heartbeat("42.1296269.99.1", wrongLeaseToken);
    expect(guessed).toMatchObject({ status: 429, body: { error: "rate_limited" } });
    const attest = await fetch(`${app!.url}/api/v1/leases/42.1296269.99.1/attest`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${wrongLeaseToken}` },
      body: JSON.stringify({ sha: "a".repeat(40) }),
    });
    expect(attest.status).toBe(429);
    expect(github.count()).toBe(0);
  });

  it("lets a GitHub token GitHub already accepted through a limited address, and asks GitHub about an unseen one instead of refusing it", async () => {
    await boot();
    nockCreateInstallationToken(github);
    nockGetUser(github, agentToken, agent);
    nockGetRepoInstallation(github, repo);
    nockGetCollaboratorPermission(github, repo, agent.login, "read");
    // Read permission is enough to prove the token; the claim itself needs write.
    expect((await claim(agentToken)).status).toBe(403);
    expect(github.count()).toBe(4);

    await failLeaseAuth(maxFailures);
    const known = await claim(agentToken);
    expect(known).toMatchObject({ status: 403, body: { error: "forbidden" } });
    expect(github.count()).toBe(4);
    // A session the App has not seen yet, from the same (limited) address: its token is verified.
    nockGetUser(github, otherAgentToken, otherAgent);
    nockGetCollaboratorPermission(github, repo, otherAgent.login, "read");
    const fresh = await claim(otherAgentToken);
    expect(fresh).toMatchObject({ status: 403, body: { error: "forbidden" } });
    expect(github.count()).toBe(6);
    // A junk token is asked about too (bounded per address), and refused with 429: the address is limited.
    nockGetUser(github, "ghp_junk", null);
    const junk = await claim("ghp_junk");
    expect(junk).toMatchObject({ status: 429, body: { error: "rate_limited" } });
    expect(Number(junk.retryAfter)).toBeGreaterThan(0);
  });

  it("lets the admin token and the dashboard login through a limited address, and refuses wrong ones with 429", async () => {
    await boot();
    await failLeaseAuth(maxFailures);
    const runJanitor = (token: string) =>
      fetch(`${app!.url}/api/v1/admin/janitor/run`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ dryRun: true }),
      });
    expect((await runJanitor(testAdminToken)).status).toBe(200);
    const wrongAdmin = await runJanitor("not-the-admin-token-at-all");
    expect(wrongAdmin.status).toBe(429);
    expect(Number(wrongAdmin.headers.get("retry-after"))).toBeGreaterThan(0);

    const login = (token: string) =>
      fetch(`${app!.url}/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token }).toString(),
        redirect: "manual",
      });
    const loggedIn = await login(testAdminToken);
    expect(loggedIn.status).toBe(303);
    expect(loggedIn.headers.get("location")).toBe("/");
    expect((await login("not-the-admin-token-at-all")).status).toBe(429);
  });

  it("limits two X-Forwarded-For clients separately when CLAIM_HOLD_TRUST_PROXY=1, and a client cannot pick its address by prepending one", async () => {
    await boot({ trustProxyHops: 1 });
    const first = { "x-forwarded-for": "203.0.113.1" };
    const second = { "x-forwarded-for": "203.0.113.2" };
    expect(await failLeaseAuth(maxFailures, first)).toEqual(Array(maxFailures).fill(401));
    expect(await failLeaseAuth(1, first)).toEqual([429]);
    expect(await failLeaseAuth(1, second)).toEqual([401]);
    // The trusted proxy appends the address it saw; what the client sent before it is not trusted.
    expect(await failLeaseAuth(1, { "x-forwarded-for": "203.0.113.2, 203.0.113.1" })).toEqual([429]);
  });

  it("ignores X-Forwarded-For without CLAIM_HOLD_TRUST_PROXY: every forwarded client is the socket's address", async () => {
    await boot();
    await failLeaseAuth(maxFailures, { "x-forwarded-for": "203.0.113.1" });
    expect(await failLeaseAuth(1, { "x-forwarded-for": "203.0.113.2" })).toEqual([429]);
  });
});

describe("clientAddressOf", () => {
  const socket = "10.0.0.5";
  it.each([
    ["no trusted hop: the socket", 0, "203.0.113.7", socket],
    ["no header", 1, undefined, socket],
    ["one hop: the last forwarded address", 1, "198.51.100.1, 203.0.113.7", "203.0.113.7"],
    ["two hops: the one before it", 2, "198.51.100.1, 203.0.113.7", "198.51.100.1"],
    ["more hops than addresses: the first one", 5, "198.51.100.1, 203.0.113.7", "198.51.100.1"],
    ["blank entries are skipped", 1, " , 203.0.113.7 ,", "203.0.113.7"],
  ])("%s", (_name, hops, forwardedFor, expected) => {
    expect(clientAddressOf({ socketAddress: socket, forwardedFor, trustedHops: hops })).toBe(expected);
  });
});

describe("CLAIM_HOLD_TRUST_PROXY", () => {
  it("is a whole number of hops, absent by default", () => {
    expect(parseEnv({}).CLAIM_HOLD_TRUST_PROXY).toBeUndefined();
    expect(parseEnv({ CLAIM_HOLD_TRUST_PROXY: "0" }).CLAIM_HOLD_TRUST_PROXY).toBe(0);
    expect(parseEnv({ CLAIM_HOLD_TRUST_PROXY: "2" }).CLAIM_HOLD_TRUST_PROXY).toBe(2);
  });

  it.each(["-1", "1.5", "yes", "true"])("refuses %s at start-up", (value) => {
    expect(() => parseEnv({ CLAIM_HOLD_TRUST_PROXY: value })).toThrow(EnvError);
  });
});
