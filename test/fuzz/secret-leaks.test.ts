// A full scenario, then a grep: no secret in logs, comments, check output, error bodies or metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClaimHoldClient } from "../../src/agent/client/index.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import { type GitHubSimulator, startGitHubSimulator } from "../../tools/github-sim/index.js";
import { fleetToken, otherToken, repo, seedWorld } from "../faults/support/world.js";
import {
  type AppHarness,
  startApp,
  testAdminToken,
  testAppPrivateKey,
  testTokenSecret,
  testWebhookSecret,
} from "../support/app-harness.js";

let sim: GitHubSimulator;
let app: AppHarness;
const seen: string[] = [];

/** fetch that keeps every error body (and /metrics, /readyz) for the grep; a claim's own 201 carries its token by design. */
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (!response.ok || /\/(metrics|readyz)$/.test(String(input))) seen.push(await response.clone().text());
  return response;
};

beforeAll(async () => {
  sim = await startGitHubSimulator({
    appKey: testAppPrivateKey(),
    webhookSecret: testWebhookSecret,
    appId: 1,
  });
  app = await startApp({
    stores: createMemoryStores(),
    githubBaseUrl: sim.baseUrl,
    now: Date.now(),
    adminToken: testAdminToken,
  });
  sim.configureWebhooks({ url: `${app.url}/api/github/webhooks` });
  seedWorld(sim);
  await sim.flush();
});
afterAll(async () => {
  await app?.close();
  await sim?.close();
});

describe("secrets stay secret through a full scenario", () => {
  it("greps logs, comments, check runs, error bodies and metrics for every secret", async () => {
    const agent = createClaimHoldClient({
      baseUrl: app.url,
      githubToken: fleetToken,
      retries: 0,
      maxTakeoverWaits: 0,
      fetch: recordingFetch,
    });
    const rival = createClaimHoldClient({
      baseUrl: app.url,
      githubToken: otherToken,
      retries: 0,
      maxTakeoverWaits: 0,
      fetch: recordingFetch,
    });
    const tokens: string[] = [];
    // The session key proves a re-claim (invariant 14): a secret like the tokens.
    const sessionKey = "sk-s1-9d2f7c1a0b8e4d6f3a5c7e9b1d3f5a7c";
    const actor = { runtime: "claude-code", sessionId: "s1", host: "h", sessionKey };
    const first = await agent.claim({ repo, issue: 1, actor });
    tokens.push(first.lease.token);
    const claimed = await agent.claim({ repo, issue: 1, actor });
    tokens.push(claimed.lease.token);
    // The rotated-out token's refusal, and an impostor naming the public session id with a wrong key.
    await agent.heartbeat(first.lease).catch(() => undefined);
    await rival
      .claim({ repo, issue: 1, actor: { sessionId: "s1", sessionKey: `${sessionKey.slice(0, -4)}xxxx` } })
      .catch(() => undefined);
    await agent.heartbeat(claimed.lease, { phase: "testing" });
    await agent.verify(claimed.lease);
    sim.openPull({ repo, author: "fleet-bot", head: claimed.lease.branch ?? "agent/s1/1", body: "Fixes #1" });
    await sim.flush();
    const sha = sim.state.requireRepo(repo).branches.get(claimed.lease.branch ?? "agent/s1/1");
    if (sha) await agent.attest(claimed.lease, sha).catch(() => undefined);
    await rival.claim({ repo, issue: 1, actor: { sessionId: "s2" } }).catch(() => undefined);
    // A wrong lease token, a truncated one, a GitHub token where a lease token belongs, a bad admin token.
    await agent
      .heartbeat({ id: claimed.lease.id, token: `${claimed.lease.token.slice(0, -2)}xx` })
      .catch(() => undefined);
    await agent.verify({ id: claimed.lease.id, token: fleetToken }).catch(() => undefined);
    await recordingFetch(`${app.url}/api/v1/admin/janitor/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${testAdminToken}x`, "content-type": "application/json" },
      body: "{}",
    });
    await recordingFetch(`${app.url}/api/v1/admin/janitor/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
      body: "{}",
    });
    const second = await agent.claim({ repo, issue: 2, actor: { sessionId: "s3" } }).catch(() => undefined);
    if (second) tokens.push(second.lease.token);
    sim.comment({ repo, issue: 1, login: "alice", body: "/reclaim" });
    await sim.flush();
    await agent.heartbeat(claimed.lease).catch(() => undefined); // superseded now
    await agent.release(claimed.lease, { outcome: "handoff", note: "over to you" }).catch(() => undefined);
    if (second) await agent.release(second.lease, { outcome: "completed" });
    await agent.inventory(repo);
    await sim.flush();
    await recordingFetch(`${app.url}/metrics`);
    await recordingFetch(`${app.url}/readyz`);

    const installationTokens = [...sim.state.installationTokens.keys()];
    expect(installationTokens.length).toBeGreaterThan(0);
    const secrets = [
      ...tokens,
      fleetToken,
      otherToken,
      testAdminToken,
      testWebhookSecret,
      testTokenSecret,
      sessionKey,
      ...installationTokens,
      testAppPrivateKey().split("\n")[1]!,
    ].filter((s) => s.length >= 12);
    const issues = [1, 2].map((n) => sim.issue(repo, n));
    const haystacks: Record<string, string> = {
      logs: app.logs.join("\n"),
      comments: issues.flatMap((i) => i.comments.map((c) => c.body)).join("\n"),
      checkRuns: JSON.stringify(sim.checkRuns(repo)),
      responses: seen.join("\n"),
    };
    expect(app.logs.length).toBeGreaterThan(10);
    expect(seen.length).toBeGreaterThan(4);
    expect(haystacks.comments).toMatch(/claim-hold:v1/);
    for (const [where, text] of Object.entries(haystacks)) {
      for (const secret of secrets) expect(text.includes(secret), `a secret in ${where}`).toBe(false);
      expect(text, where).not.toMatch(/clh_[A-Za-z0-9_-]{20,}/);
      expect(text, where).not.toMatch(/\bgh[pousr]_[A-Za-z0-9]{20,}/);
      expect(text, where).not.toMatch(/BEGIN (RSA )?PRIVATE KEY/);
    }
  });
});

describe("isolation between installations, subjects and credentials", () => {
  it("an agent's token for one org cannot claim or read another installation's repository", async () => {
    sim.seed({
      users: [{ login: "acme-admin" }],
      repos: [
        {
          fullName: "acme/vault",
          id: 9001,
          collaborators: { "acme-admin": "admin" },
          issues: [{ number: 1, title: "Secret work" }],
        },
      ],
      installations: [{ id: 77, account: "acme", repos: ["acme/vault"] }],
    });
    await sim.flush();
    const agent = createClaimHoldClient({
      baseUrl: app.url,
      githubToken: fleetToken,
      retries: 0,
      maxTakeoverWaits: 0,
    });
    const mark = sim.requests.mark();
    await expect(
      agent.claim({ repo: "acme/vault", issue: 1, actor: { sessionId: "x" } }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(agent.inventory("acme/vault")).rejects.toMatchObject({ status: 403 });
    await expect(agent.subject("acme/vault", 1)).rejects.toMatchObject({ status: 403 });
    expect(sim.issue("acme/vault", 1).assignees).toEqual([]);
    expect(sim.requests.since(mark).filter((r) => r.operationType === "mutation")).toEqual([]);
  });

  it("a lease token is bound to its subject and generation; the admin token is no GitHub credential", async () => {
    const agent = createClaimHoldClient({
      baseUrl: app.url,
      githubToken: fleetToken,
      retries: 0,
      maxTakeoverWaits: 0,
    });
    const a = await agent.claim({ repo, issue: 3, actor: { sessionId: "bind" } });
    const [inst, repoPart, , gen] = a.lease.id.split(".");
    const otherSubject = `${inst}.${repoPart}.2.${gen}`;
    const nextGeneration = `${inst}.${repoPart}.3.${Number(gen) + 1}`;
    for (const id of [otherSubject, nextGeneration]) {
      const status = await agent.verify({ id, token: a.lease.token }).then(
        () => 200,
        (e: { status: number }) => e.status,
      );
      expect([401, 404, 409, 410]).toContain(status);
    }
    const admin = createClaimHoldClient({
      baseUrl: app.url,
      githubToken: testAdminToken,
      retries: 0,
      maxTakeoverWaits: 0,
    });
    await expect(admin.claim({ repo, issue: 2, actor: { sessionId: "adm" } })).rejects.toMatchObject({
      status: 401,
    });
    await agent.release(a.lease, { outcome: "abandoned" });
  });

  it("failed authentications are rate limited per address with Retry-After", async () => {
    let last: Response | undefined;
    for (let i = 0; i < 25; i++) {
      last = await fetch(`${app.url}/api/v1/leases/1.1.1.1`, { headers: { authorization: "Bearer nope" } });
      if (last.status === 429) break;
    }
    expect(last?.status).toBe(429);
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
