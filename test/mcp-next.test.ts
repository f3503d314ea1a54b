// MCP tool `claim_next_issue` in `claim-hold mcp` as a child process, driven by the SDK's client, against the fake of the HTTP API.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeApi, startFakeApi } from "./support/fake-api.js";

const bin = resolve(import.meta.dirname, "../bin/claim-hold.js");
const repo = "octo/widgets";

let fake: FakeApi;
let temporary: string[];
let clients: Client[];

beforeEach(async () => {
  fake = await startFakeApi({ heartbeatIntervalSeconds: 1 });
  temporary = [];
  clients = [];
  fake.openIssues.set(repo, [
    { number: 3, title: "three", assignees: [] },
    { number: 5, title: "five", assignees: [], labels: ["p0", "agent-ready"] },
  ]);
});

afterEach(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await fake.close();
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

function makeWorktree(): string {
  const dir = mkdtempSync(join(tmpdir(), "claim-hold-mcp-next-"));
  temporary.push(dir);
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, GIT_CONFIG_NOSYSTEM: "1" },
    });
  git("init", "-q", "-b", "main");
  git("config", "user.email", "agent@example.com");
  git("config", "user.name", "Agent");
  writeFileSync(join(dir, "README.md"), "hello\n");
  git("add", ".");
  git("commit", "-q", "-m", "initial");
  return dir;
}

async function startMcp(sessionId: string) {
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
      CLAIM_HOLD_URL: fake.url,
      GITHUB_TOKEN: "ghp_agenttoken",
      CLAIM_HOLD_SESSION_ID: sessionId,
      CLAIM_HOLD_HOST: "build-7",
      CLAIM_HOLD_HEARTBEAT_MS: "40",
    },
  });
  const client = new Client({ name: "claim-hold-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return {
    client,
    worktree,
    call: async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
  };
}

const textOf = (result: CallToolResult) =>
  result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("list_free_issues", () => {
  it("answers the App's ranked queue (what claim_next_issue would pick, in order) and never calls GitHub", async () => {
    fake.openIssues.set(repo, [
      { number: 3, title: "three", assignees: [] },
      { number: 5, title: "five", assignees: [], labels: ["p0", "agent-ready"] },
      { number: 6, title: "six", assignees: ["octocat"] },
    ]);
    const mcp = await startMcp("sessA");

    const listed = await mcp.call("list_free_issues", { repo });
    const limited = await mcp.call("list_free_issues", { repo, limit: 1 });

    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent).toEqual({
      repo,
      free: [
        { subject: "octo/widgets#5", issue: 5, title: "five", rank: 1, reasons: ["priority:p0", "oldest"] },
        { subject: "octo/widgets#3", issue: 3, title: "three", rank: 2, reasons: ["oldest"] },
      ],
      skipped: [{ subject: "octo/widgets#6", issue: 6, reason: "human" }],
      truncated: false,
    });
    expect(textOf(listed)).toContain(
      '2 free issue(s) in octo/widgets, best first: #5 "five" (priority:p0, oldest); #3 "three" (oldest). Skipped: 1 human.',
    );
    expect(limited.structuredContent).toMatchObject({ free: [{ issue: 5 }], truncated: true });
    expect(textOf(limited)).toContain("1+ free issue(s)");
    // Only the App's queue route, with the agent's token: no GitHub host, no inventory join.
    expect(fake.requests.map((r) => [r.method, r.path, r.authorization])).toEqual([
      ["GET", "/api/v1/repos/octo/widgets/queue", "Bearer ghp_agenttoken"],
      ["GET", "/api/v1/repos/octo/widgets/queue?limit=1", "Bearer ghp_agenttoken"],
    ]);
  });

  it("reports a failure of the App as a tool error with the server's code", async () => {
    const mcp = await startMcp("sessC");
    fake.script("GET", "/api/v1/repos/octo/widgets/queue", {
      status: 404,
      body: { error: "not_installed", message: "the App is not installed on octo/widgets" },
    });

    const failed = await mcp.call("list_free_issues", { repo });

    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ error: "not_installed", status: 404 });
    expect(textOf(failed)).toContain("not_installed: the App is not installed on octo/widgets");
  });
});

describe("claim_next_issue", () => {
  it("claims the App's pick, heartbeats it without tool calls, and answers queueEmpty when nothing is left", async () => {
    const mcp = await startMcp("sessA");

    const picked = await mcp.call("claim_next_issue", {
      repo,
      labels: ["agent-ready"],
      excludeLabels: ["needs-design"],
      capabilities: ["gpu"],
    });

    expect(picked.isError).toBeFalsy();
    expect(textOf(picked)).not.toMatch(/clh_/);
    expect(textOf(picked)).toContain("Picked issue #5 of octo/widgets, rank 1 (priority:p0, oldest).");
    expect(picked.structuredContent).toMatchObject({
      queueEmpty: false,
      picked: { issue: 5, rank: 1, reasons: ["priority:p0", "oldest"] },
      created: true,
      sessionId: "sessA",
      branch: "agent/sessA/5-work",
      lease: { subject: "octo/widgets#5", generation: 1, status: "held" },
    });
    expect(fake.requests[0]).toMatchObject({
      path: "/api/v1/claims/next",
      body: {
        repo,
        actor: { sessionId: "sessA", host: "build-7", sessionKey: expect.any(String) },
        taskClass: "author",
        labels: ["agent-ready"],
        excludeLabels: ["needs-design"],
        capabilities: ["gpu"],
      },
    });
    const leaseFile = JSON.parse(
      readFileSync(join(mcp.worktree, ".git", "claim-hold", "octo__widgets__5.json"), "utf8"),
    );
    expect(leaseFile).toMatchObject({ issue: 5, status: "held" });

    // No tool call: the server heartbeats what it holds.
    const token = fake.claimOf(repo, 5)!.token;
    await until(
      () => fake.requests.filter((r) => r.authorization === `Bearer ${token}`).length >= 2,
      "two heartbeats of #5",
    );

    // The same session's second pick: #3 is all that is left (the fake has no per-session cap).
    const second = await mcp.call("claim_next_issue", { repo });
    expect(second.structuredContent).toMatchObject({ picked: { issue: 3 } });

    const empty = await mcp.call("claim_next_issue", { repo });
    expect(empty.isError).toBeFalsy();
    expect(empty.structuredContent).toEqual({
      queueEmpty: true,
      repo,
      skipped: { held: 2, human: 0, blocked: 0, prOpen: 0, filtered: 0 },
    });
    expect(textOf(empty)).toContain("No eligible issue in octo/widgets: nothing to work on now.");

    const status = await mcp.call("claim_status", { repo, issue: 5 });
    expect(status.structuredContent).toMatchObject({
      subject: "octo/widgets#5",
      thisSession: { holds: true, generation: 1 },
    });
  });

  it("reports a failure of the App as a tool error with the server's code", async () => {
    const mcp = await startMcp("sessB");
    fake.script("POST", "/api/v1/claims/next", {
      status: 503,
      body: { error: "store_unavailable", message: "the store is down" },
    });

    const failed = await mcp.call("claim_next_issue", { repo });

    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ error: "store_unavailable", status: 503 });
    expect(fake.requests.filter((r) => r.path === "/api/v1/claims/next")).toHaveLength(1);
  });
});
