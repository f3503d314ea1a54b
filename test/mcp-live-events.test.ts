// `claim-hold mcp` hears its leases' live events: a takeover reaches the agent as an MCP notification before the server's next heartbeat.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type CallToolResult,
  LoggingMessageNotificationSchema,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import type { Redis } from "ioredis";
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClaimHoldClient } from "../src/agent/client/index.js";
import type { LeaseEventListener } from "../src/providers/lease-event-bus.js";
import { MemoryLeaseEventBus } from "../src/providers/memory/memory-lease-event-bus.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import type { Stores } from "../src/providers/stores.js";
import { type AppHarness, startApp } from "./support/app-harness.js";
import {
  agent,
  agentToken,
  GitHubRequestLog,
  type IssueState,
  nockApplyTransition,
  nockCreateInstallationToken,
  nockGetCollaboratorPermission,
  nockGetRepoInstallation,
  nockGetUser,
  nockNoConfigFile,
  nockSubjectStatus,
} from "./support/github-fake/index.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const bin = resolve(import.meta.dirname, "../bin/claim-hold.js");
const repo = "octo/widgets";
const issue: IssueState = { repo, repoId: 1296269, number: 12, title: "Issue 12" };
const ttlMs = 30 * 60_000;
/** The MCP server's heartbeat interval here: one beat at the claim, the next far beyond the test. */
const heartbeatMs = 10 * 60_000;

const probe = await probeRedis();
const describeRedis = probe.available ? describe : describe.skip;

/** The App's own in-process bus, remembering which leases have a live stream listening right now. */
class ListenedBus extends MemoryLeaseEventBus {
  readonly listened = new Map<string, number>();
  override subscribe(leaseId: string, listener: LeaseEventListener): () => void {
    this.listened.set(leaseId, (this.listened.get(leaseId) ?? 0) + 1);
    const stop = super.subscribe(leaseId, listener);
    return () => {
      this.listened.set(leaseId, (this.listened.get(leaseId) ?? 1) - 1);
      stop();
    };
  }
}

let redis: Redis;
let prefix: string;
let stores: Stores;
let bus: ListenedBus;
let app: AppHarness;
let github: GitHubRequestLog;
let temporary: string[];
let clients: Client[];

beforeAll(async () => {
  if (probe.available) redis = await createTestRedis();
});

afterAll(async () => {
  await redis?.quit();
});

beforeEach(async () => {
  if (!probe.available) return;
  prefix = uniqueKeyPrefix("mcp-live");
  stores = createRedisStores({ redis, keyPrefix: prefix });
  bus = new ListenedBus();
  github = new GitHubRequestLog();
  app = await startApp({ stores, leaseEvents: bus });
  temporary = [];
  clients = [];
});

afterEach(async () => {
  if (!probe.available) return;
  for (const client of clients) await client.close().catch(() => {});
  await app.close();
  await deleteKeysWithPrefix(redis, prefix);
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, GIT_CONFIG_NOSYSTEM: "1" },
  });
}

interface Notice {
  level: string;
  data: { subject?: string; message?: string; event?: string };
  at: number;
}

async function startMcp(sessionId: string, env: Record<string, string> = {}) {
  const worktree = mkdtempSync(join(tmpdir(), "claim-hold-mcp-live-"));
  temporary.push(worktree);
  git(worktree, "init", "-q", "-b", "main");
  writeFileSync(join(worktree, "README.md"), "hello\n");
  git(worktree, "add", ".");
  git(worktree, "-c", "user.email=a@example.com", "-c", "user.name=A", "commit", "-q", "-m", "initial");
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
      CLAIM_HOLD_HEARTBEAT_MS: String(heartbeatMs),
      ...env,
    },
  });
  const client = new Client({ name: "claim-hold-test", version: "1.0.0" });
  const notices: Notice[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification: ServerNotification) => {
    const params = notification.params as { level: string; data: Notice["data"] };
    notices.push({ level: params.level, data: params.data, at: Date.now() });
  });
  await client.connect(transport);
  clients.push(client);
  const leaseFile = () => {
    try {
      const path = join(worktree, ".git", "claim-hold", "octo__widgets__12.json");
      return JSON.parse(readFileSync(path, "utf8")) as { leaseId: string; status: string };
    } catch {
      return null;
    }
  };
  return {
    notices,
    leaseFile,
    call: async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
  };
}

async function until<T>(what: string, probeValue: () => T | undefined | Promise<T | undefined>) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probeValue();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function mockExpiredCaches() {
  nockGetUser(github, agentToken, agent);
  nockGetRepoInstallation(github, repo);
  nockGetCollaboratorPermission(github, repo, agent.login, "write");
  nockNoConfigFile(github, repo);
}

/** Every heartbeat the App answered so far, whatever its outcome (its own metrics). */
async function heartbeatsAnswered(): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  return [...text.matchAll(/^claim_hold_heartbeats_total\{[^}]*\} (\d+)$/gm)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
}

describeRedis("claim-hold mcp live lease events", () => {
  it("tells the agent of a takeover at once, as a notification, before its next heartbeat — after a re-claim rotated the token", async () => {
    const mcp = await startMcp("sessL");
    nockCreateInstallationToken(github);
    mockExpiredCaches();
    nockSubjectStatus(github, issue);
    const write = nockApplyTransition(github, { claimComment: { id: "IC_l", databaseId: 9101 } });
    expect((await mcp.call("claim_issue", { repo, issue: 12 })).isError).toBeFalsy();
    const leaseId = mcp.leaseFile()!.leaseId;
    await until("the stream of the lease", () => ((bus.listened.get(leaseId) ?? 0) > 0 ? true : undefined));
    await until("the first heartbeat", async () => ((await heartbeatsAnswered()) > 0 ? true : undefined));

    // The session claims again (a restarted agent does): the token rotates, the stream stays.
    nockSubjectStatus(github, {
      ...issue,
      assignees: [{ login: agent.login, id: agent.node_id }],
      labels: ["agent:claimed"],
    });
    nockApplyTransition(github);
    const reclaimed = await mcp.call("claim_issue", { repo, issue: 12 });
    expect(reclaimed.structuredContent).toMatchObject({ created: false, lease: { generation: 1 } });

    // Silent past its ttl on the App's clock (the process itself is alive): another session takes over.
    app.clock.now += ttlMs;
    const beatsBefore = await heartbeatsAnswered();
    const held: IssueState = {
      ...issue,
      assignees: [{ login: agent.login, id: agent.node_id }],
      labels: ["agent:claimed"],
      comments: [
        {
          id: "IC_l",
          databaseId: 9101,
          body: (write.variables!.claimComment as { body: string }).body,
          viewerDidAuthor: true,
        },
      ],
    };
    mockExpiredCaches();
    nockSubjectStatus(github, held);
    mockExpiredCaches();
    nockSubjectStatus(github, held);
    nockApplyTransition(github, { claimComment: { id: "IC_m", databaseId: 9102 } });
    const successor = createClaimHoldClient({
      baseUrl: app.url,
      githubToken: agentToken,
      retries: 0,
      sleep: async (ms) => {
        app.clock.now += ms; // the grace beat passes on the App's clock
      },
    });
    const takenAt = Date.now();
    const taken = await successor.claim({
      repo,
      issue: 12,
      actor: { runtime: "codex", sessionId: "sessM" },
      takeover: true,
    });
    expect(taken.lease.generation).toBe(2);

    const lost = await until("the loss notification", () =>
      mcp.notices.find((notice) => notice.level === "alert"),
    );
    process.stdout.write(
      `takeover → the MCP client's notification in ${lost.at - takenAt} ms (heartbeat interval ${heartbeatMs} ms)\n`,
    );
    expect(lost.data).toEqual({
      subject: "octo/widgets#12",
      message:
        "LOST octo/widgets#12: the claim was superseded by fleet-bot codex session sessM (now generation 2). " +
        "This session no longer holds it: stop working on it now — no commit, push, pull request or merge for it.",
    });
    // The intent came first, as a warning.
    expect(mcp.notices.find((notice) => notice.data.event === "takeover_pending")).toMatchObject({
      level: "warning",
    });
    // Learned from the stream, not from a heartbeat: none was answered since the takeover began.
    expect(await heartbeatsAnswered()).toBe(beatsBefore);
    // And recorded in the lease file although the re-claim rotated the token the loop began with.
    expect(mcp.leaseFile()).toMatchObject({ leaseId, status: "superseded" });
    const verify = await mcp.call("verify_hold", {});
    expect(verify.structuredContent).toMatchObject({ error: "superseded", generation: 2 });
  });

  it("with CLAIM_HOLD_LIVE_EVENTS=0 opens no stream: heartbeats alone", async () => {
    const mcp = await startMcp("sessN", { CLAIM_HOLD_LIVE_EVENTS: "0" });
    nockCreateInstallationToken(github);
    mockExpiredCaches();
    nockSubjectStatus(github, issue);
    nockApplyTransition(github, { claimComment: { id: "IC_n", databaseId: 9103 } });
    expect((await mcp.call("claim_issue", { repo, issue: 12 })).isError).toBeFalsy();
    await until("the first heartbeat", async () => ((await heartbeatsAnswered()) > 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(bus.listened.size).toBe(0);
  });
});
