// `claim-hold mcp` as a child process driven by the MCP SDK's own client over stdio, against the real App.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Redis } from "ioredis";
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClaimHoldClient } from "../src/agent/client/index.js";
import { livenessOf } from "../src/domain/liveness.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import type { Stores } from "../src/providers/stores.js";
import { type AppHarness, startApp } from "./support/app-harness.js";
import {
  agent,
  agentToken,
  GitHubRequestLog,
  type IssueState,
  installationId,
  nockApplyTransition,
  nockCreateInstallationToken,
  nockGetCollaboratorPermission,
  nockGetRepoInstallation,
  nockGetUser,
  nockNoConfigFile,
  nockOpenIssues,
  nockResolveLabels,
  nockSubjectStatus,
} from "./support/github-fake/index.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const bin = resolve(import.meta.dirname, "../bin/claim-hold.js");
const repo = "octo/widgets";
const repoId = 1296269;
const ttlMs = 30 * 60_000;
const issues: IssueState[] = [12, 13, 14].map((number) => ({
  repo,
  repoId,
  number,
  title: `Issue ${number}`,
}));
const issue = (number: number) => issues.find((i) => i.number === number)!;

const probe = await probeRedis();
const describeRedis = probe.available ? describe : describe.skip;

let redis: Redis;
let prefix: string;
let stores: Stores;
let app: AppHarness;
let github: GitHubRequestLog;
let temporary: string[];
let sessions: McpSession[];

beforeAll(async () => {
  if (!probe.available) return;
  redis = await createTestRedis();
});

afterAll(async () => {
  await redis?.quit();
});

beforeEach(async () => {
  if (!probe.available) return;
  prefix = uniqueKeyPrefix("mcp");
  stores = createRedisStores({ redis, keyPrefix: prefix });
  github = new GitHubRequestLog();
  app = await startApp({ stores });
  temporary = [];
  sessions = [];
});

afterEach(async () => {
  if (!probe.available) return;
  for (const session of sessions) await session.client.close().catch(() => {});
  await app.close();
  await deleteKeysWithPrefix(redis, prefix);
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

interface McpSession {
  client: Client;
  transport: StdioClientTransport;
  worktree: string;
  stderr: () => string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: process.env.HOME, GIT_CONFIG_NOSYSTEM: "1" },
  }).trim();
}

function makeWorktree(): string {
  const dir = mkdtempSync(join(tmpdir(), "claim-hold-mcp-"));
  temporary.push(dir);
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.email", "agent@example.com");
  git(dir, "config", "user.name", "Agent");
  writeFileSync(join(dir, "README.md"), "hello\n");
  git(dir, "add", ".");
  git(dir, "commit", "-q", "-m", "initial");
  return dir;
}

/** Spawns `node bin/claim-hold.js mcp` in a fresh worktree and connects the SDK's client to it. */
async function startMcp(sessionId: string, env: Record<string, string> = {}): Promise<McpSession> {
  const worktree = makeWorktree();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp"],
    cwd: worktree,
    stderr: "pipe",
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      GIT_CONFIG_NOSYSTEM: "1",
      CLAIM_HOLD_URL: app.url,
      GITHUB_TOKEN: agentToken,
      CLAIM_HOLD_SESSION_ID: sessionId,
      CLAIM_HOLD_RUNTIME: "claude-code",
      CLAIM_HOLD_HOST: "build-7",
      CLAIM_HOLD_HEARTBEAT_MS: "40",
      ...env,
    },
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: "claim-hold-test", version: "1.0.0" });
  await client.connect(transport);
  const session: McpSession = {
    client,
    transport,
    worktree,
    stderr: () => stderr,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
  };
  sessions.push(session);
  return session;
}

const textOf = (result: CallToolResult) =>
  result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

const key = (issueNumber: number) => ({ installationId, repoId, issue: issueNumber });

async function until<T>(what: string, probeValue: () => Promise<T | undefined>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probeValue();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Moves the App's clock on and waits until the child process heartbeated at the new time. */
async function expectHeartbeatWithoutToolCalls(issueNumber: number): Promise<void> {
  const before = (await stores.claims.get(key(issueNumber)))!.lastHeartbeatAt;
  app.clock.now += 1_000;
  const target = app.clock.now;
  const beat = await until(`a heartbeat of #${issueNumber}`, async () => {
    const record = await stores.claims.get(key(issueNumber));
    return record && record.lastHeartbeatAt === target ? record.lastHeartbeatAt : undefined;
  });
  expect(beat).toBeGreaterThan(before);
}

/** Identity lookups of a first GitHub-token call: installation token, user, installation, permission, config. */
function mockColdAuth() {
  nockCreateInstallationToken(github);
  mockExpiredCaches();
}

/** The App's 5-minute caches run on its clock: after it moves on, the lookups happen again. */
function mockExpiredCaches() {
  nockGetUser(github, agentToken, agent);
  nockGetRepoInstallation(github, repo);
  nockGetCollaboratorPermission(github, repo, agent.login, "write");
  nockNoConfigFile(github, repo);
}

function leaseFileOf(session: McpSession, issueNumber: number) {
  const path = join(session.worktree, ".git", "claim-hold", `octo__widgets__${issueNumber}.json`);
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
}

describeRedis("claim-hold mcp", () => {
  it("lists its tools, claims, heartbeats on its own, warns of scope overlaps and reports a lost claim in the next result", async () => {
    const mcp = await startMcp("sessA");
    const tools = await mcp.client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual([
      "ask_human",
      "attest_commit",
      "claim_issue",
      "claim_next_issue",
      "claim_status",
      "list_free_issues",
      "release_claim",
      "verify_hold",
    ]);

    mockColdAuth();
    // list_free_issues reads the App's queue (test/mcp-next.test.ts); here the claim comes first.
    nockSubjectStatus(github, issue(12));
    const write = nockApplyTransition(github, { claimComment: { id: "IC_a", databaseId: 9001 } });
    const claimed = await mcp.call("claim_issue", { repo, issue: 12, scope: ["src/parser/**"] });
    expect(claimed.isError).toBeFalsy();
    expect(textOf(claimed)).not.toMatch(/clh_/);
    expect(claimed.structuredContent).toMatchObject({
      created: true,
      sessionId: "sessA",
      branch: "agent/sessA/12-issue-12",
      resume: null,
      overlaps: [],
      lease: { subject: "octo/widgets#12", generation: 1, status: "held" },
    });
    expect(leaseFileOf(mcp, 12)).toMatchObject({ generation: 1, status: "held" });

    // No tool call: the server heartbeats by itself.
    await expectHeartbeatWithoutToolCalls(12);
    await expectHeartbeatWithoutToolCalls(12);

    // The session's secret key (0600, beside the lease files) proves a re-claim; the App keeps only a digest.
    const keyFile = join(mcp.worktree, ".git", "claim-hold", "session-keys", "sessA");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const sessionKey = readFileSync(keyFile, "utf8").trim();
    expect((await stores.claims.get(key(12)))?.sessionKeyDigest).toMatch(/^[0-9a-f]{64}$/);
    nockSubjectStatus(github, {
      ...issue(12),
      assignees: [{ login: agent.login, id: agent.node_id }],
      labels: ["agent:claimed"],
    });
    nockApplyTransition(github);
    const reclaimed = await mcp.call("claim_issue", { repo, issue: 12, scope: ["src/parser/**"] });
    expect(reclaimed.isError).toBeFalsy();
    expect(reclaimed.structuredContent).toMatchObject({ created: false, lease: { generation: 1 } });
    expect(JSON.stringify([reclaimed, await stores.claims.get(key(12)), github.entries])).not.toContain(
      sessionKey,
    );
    // The heartbeat loop goes on with the new token.
    await expectHeartbeatWithoutToolCalls(12);

    // Another session declares files inside the first one's scope: a warning, at no GitHub cost.
    const other = createClaimHoldClient({ baseUrl: app.url, githubToken: agentToken, retries: 0 });
    nockSubjectStatus(github, issue(13));
    nockApplyTransition(github, { claimComment: { id: "IC_b", databaseId: 9002 } });
    const mark = github.count();
    const second = await other.claim({
      repo,
      issue: 13,
      actor: { runtime: "codex", sessionId: "sessB" },
      scope: ["src/parser/lexer.ts", "docs/**"],
    });
    expect(github.since(mark).map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /graphql",
      "POST /graphql",
    ]);
    expect(second.created).toBe(true);
    expect(second.overlaps).toEqual([
      {
        subject: "octo/widgets#12",
        holder: {
          kind: "agent",
          login: agent.login,
          runtime: "claude-code",
          sessionId: "sessA",
          host: "build-7",
        },
        paths: ["src/parser/lexer.ts ∩ src/parser/**"],
      },
    ]);
    nockOpenIssues(github, repo, repoId, issues);
    const inventory = await other.inventory(repo);
    const row12 = inventory.claims.find((row) => row.subject === "octo/widgets#12");
    expect(row12?.reasons).toContain("scope-overlap");
    expect(row12).toMatchObject({
      overlaps: [{ subject: "octo/widgets#13", paths: ["src/parser/** ∩ src/parser/lexer.ts"] }],
    });

    // The first session's process sleeps past its lease (SIGSTOP): a third session takes over.
    process.kill(mcp.transport.pid!, "SIGSTOP");
    try {
      await new Promise((r) => setTimeout(r, 150)); // let a heartbeat already sent reach the App
      app.clock.now += ttlMs;
      const claimComment = (write.variables!.claimComment as { body: string }).body;
      const held: IssueState = {
        ...issue(12),
        assignees: [{ login: agent.login, id: agent.node_id }],
        labels: ["agent:claimed"],
        comments: [{ id: "IC_a", databaseId: 9001, body: claimComment, viewerDidAuthor: true }],
      };
      mockExpiredCaches();
      nockSubjectStatus(github, held);
      mockExpiredCaches();
      nockSubjectStatus(github, held);
      nockApplyTransition(github, { claimComment: { id: "IC_c", databaseId: 9003 } });
      const successor = createClaimHoldClient({
        baseUrl: app.url,
        githubToken: agentToken,
        retries: 0,
        sleep: async (ms) => {
          app.clock.now += ms; // the grace beat passes on the App's clock, not the test's
        },
      });
      const taken = await successor.claim({
        repo,
        issue: 12,
        actor: { runtime: "codex", sessionId: "sessC" },
        takeover: true,
      });
      expect(taken).toMatchObject({
        created: true,
        lease: { generation: 2 },
        resume: { previousGeneration: 1 },
      });
    } finally {
      process.kill(mcp.transport.pid!, "SIGCONT");
    }

    // Its next heartbeat meets 409 superseded; the lease file records it and the loop stops.
    await until("the superseded heartbeat", async () =>
      leaseFileOf(mcp, 12)?.status === "superseded" ? true : undefined,
    );
    nockSubjectStatus(github, issue(12));
    const status = await mcp.call("claim_status", { repo, issue: 12 });
    expect(status.isError).toBeFalsy();
    const [notice] = status.content;
    expect(notice).toEqual({
      type: "text",
      text:
        "LOST octo/widgets#12: the claim was superseded by fleet-bot codex session sessC (now generation 2). " +
        "This session no longer holds it: stop working on it now — no commit, push, pull request or merge for it.",
    });
    expect(status.structuredContent).toMatchObject({
      generation: 2,
      actor: { sessionId: "sessC" },
      thisSession: { holds: false, generation: 1, status: "superseded" },
    });

    // Said once; the gate itself keeps refusing, as an MCP tool error with the server's code.
    const verify = await mcp.call("verify_hold");
    expect(verify.isError).toBe(true);
    expect(verify.content).toHaveLength(1);
    expect(verify.structuredContent).toMatchObject({ error: "superseded", status: 409, generation: 2 });
    expect(textOf(verify)).toMatch(/^This session no longer holds the issue: stop working on it now/);
    expect((await stores.claims.get(key(12)))?.actor.sessionId).toBe("sessC");
  });

  it("stops heartbeating when its process dies, so the claim goes stale after the ttl", async () => {
    const mcp = await startMcp("sessD");
    mockColdAuth();
    nockSubjectStatus(github, issue(14));
    nockApplyTransition(github, { claimComment: { id: "IC_d", databaseId: 9004 } });
    const claimed = await mcp.call("claim_issue", { repo, issue: 14 });
    expect(claimed.isError).toBeFalsy();
    await expectHeartbeatWithoutToolCalls(14);

    const pid = mcp.transport.pid!;
    process.kill(pid, "SIGKILL");
    await until("the child to exit", async () => {
      try {
        process.kill(pid, 0);
        return undefined;
      } catch {
        return true;
      }
    });
    const lastBeat = (await stores.claims.get(key(14)))!.lastHeartbeatAt;
    app.clock.now += ttlMs;

    const record = (await stores.claims.get(key(14)))!;
    expect(record).toMatchObject({ state: "active", lastHeartbeatAt: lastBeat });
    expect(livenessOf(record, app.clock.now)).toBe("stale");
    mockExpiredCaches();
    nockSubjectStatus(github, {
      ...issue(14),
      assignees: [{ login: agent.login, id: agent.node_id }],
      labels: ["agent:claimed"],
    });
    const subject = await createClaimHoldClient({ baseUrl: app.url, githubToken: agentToken }).subject(
      repo,
      14,
    );
    expect(subject).toMatchObject({ state: "stale", actor: { sessionId: "sessD" }, generation: 1 });
  });

  it("releases its claims with outcome handoff when the agent session closes its stdin", async () => {
    const mcp = await startMcp("sessE");
    mockColdAuth();
    nockSubjectStatus(github, issue(13));
    nockApplyTransition(github, { claimComment: { id: "IC_e", databaseId: 9005 } });
    expect((await mcp.call("claim_issue", { repo, issue: 13 })).isError).toBeFalsy();
    await expectHeartbeatWithoutToolCalls(13);

    const release = nockApplyTransition(github);
    await mcp.client.close(); // ends the child's stdin, as a finished agent session does
    const record = (await stores.claims.get(key(13)))!;
    expect(record).toMatchObject({ state: "released", outcome: "handoff", sync: "done" });
    expect(JSON.stringify(release.variables)).toContain(
      "The MCP server of this session stopped (stdin closed); the work is handed off.",
    );
    expect(leaseFileOf(mcp, 13)).toBeNull();
    expect(mcp.stderr()).toContain("claim-hold mcp: released octo/widgets#13 (handoff)");
  });

  it("asks for a person with ask_human, keeps asking on its own heartbeats, and withdraws when resolved", async () => {
    const mcp = await startMcp("sessH");
    mockColdAuth();
    nockSubjectStatus(github, issue(14));
    nockApplyTransition(github, { claimComment: { id: "IC_h", databaseId: 9003 } });
    expect((await mcp.call("claim_issue", { repo, issue: 14 })).isError).toBeFalsy();

    // The needs-human label's node id is looked up once (the claim's read named only the managed ones).
    nockResolveLabels(github, repo);
    const asked = nockApplyTransition(github);
    const result = await mcp.call("ask_human", { blocker: "need the staging database password" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      subject: "octo/widgets#14",
      needsHuman: true,
      state: "waiting",
    });
    expect(JSON.stringify(asked.variables)).toContain("need the staging database password");
    expect(leaseFileOf(mcp, 14)).toMatchObject({ needsHuman: "need the staging database password" });
    expect(await stores.claims.get(key(14))).toMatchObject({ needsHuman: true });

    // The server's own heartbeats repeat the ask: it stands, at no GitHub cost.
    const mark = github.count();
    await expectHeartbeatWithoutToolCalls(14);
    expect(await stores.claims.get(key(14))).toMatchObject({ needsHuman: true });
    expect(github.count()).toBe(mark);

    // Withdrawn within the label's minute: the store clears at once, the label write waits its turn
    // (one label write per subject a minute; the next heartbeat past it, or reconcile, makes it).
    const beforeWithdraw = github.count();
    const resolved = await mcp.call("ask_human", { resolved: true });
    expect(resolved.structuredContent).toMatchObject({ needsHuman: false, state: "active" });
    expect(github.count()).toBe(beforeWithdraw);
    expect(leaseFileOf(mcp, 14)?.needsHuman).toBeUndefined();
    expect((await stores.claims.get(key(14)))?.needsHuman).toBeUndefined();

    const missing = await mcp.call("ask_human", {});
    expect(missing).toMatchObject({ isError: true, structuredContent: { error: "usage" } });
  });

  it("answers a tool call it cannot serve with an MCP tool error carrying the server's code", async () => {
    const mcp = await startMcp("sessF");
    const verify = await mcp.call("verify_hold");
    expect(verify).toMatchObject({ isError: true, structuredContent: { error: "usage" } });
    expect(textOf(verify)).toContain("no lease in this worktree");

    nockCreateInstallationToken(github);
    nockGetUser(github, agentToken, agent);
    nockGetRepoInstallation(github, repo);
    nockGetCollaboratorPermission(github, repo, agent.login, "write");
    nockSubjectStatus(github, { ...issue(12), state: "CLOSED" });
    const closed = await mcp.call("claim_issue", { repo, issue: 12 });
    expect(closed).toMatchObject({
      isError: true,
      structuredContent: { error: "closed", status: 409, message: "octo/widgets#12 is closed." },
    });
    // The process is still serving.
    expect((await mcp.client.listTools()).tools).toHaveLength(8);
  });
});
