// End to end: the real MCP server's heartbeats stop repeating an ask a person cleared (the dashboard's "clear needs-human"); a reply leaves the ask standing.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testAdminToken } from "../support/app-harness.js";
import { probeRedis } from "../support/redis.js";
import { type E2eWorld, fleet, installationId, repo, startWorld } from "./support/e2e-world.js";

const bin = resolve(import.meta.dirname, "../../bin/claim-hold.js");
const redisProbe = await probeRedis();
const key = { installationId, repoId: 1296269, issue: 1 };
let world: E2eWorld;
let worktree: string;
let client: Client | undefined;

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, GIT_CONFIG_NOSYSTEM: "1" },
  });
}

async function startMcp() {
  worktree = mkdtempSync(join(tmpdir(), "claim-hold-ask-cleared-"));
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
      CLAIM_HOLD_URL: world.app.url,
      GITHUB_TOKEN: fleet.token,
      CLAIM_HOLD_SESSION_ID: "sessQ",
      CLAIM_HOLD_RUNTIME: "claude-code",
      CLAIM_HOLD_HEARTBEAT_MS: "200",
    },
  });
  client = new Client({ name: "claim-hold-test", version: "1.0.0" });
  await client.connect(transport);
  return async (name: string, args: Record<string, unknown>) =>
    (await client!.callTool({ name, arguments: args })) as CallToolResult;
}

function leaseFile(): { leaseId: string; needsHuman?: string } | null {
  try {
    return JSON.parse(readFileSync(join(worktree, ".git", "claim-hold", "octo__widgets__1.json"), "utf8"));
  } catch {
    return null;
  }
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The App's record once a heartbeat sent after now (on the App's clock) has landed. */
async function recordAfterNextBeat() {
  world.app.clock.now += 1_000;
  const after = world.app.clock.now;
  return until("a later heartbeat", async () => {
    const record = await world.stores.claims.get(key);
    return record && record.lastHeartbeatAt >= after ? record : undefined;
  });
}

async function clearFromDashboard(): Promise<void> {
  const login = await fetch(`${world.app.url}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: testAdminToken }).toString(),
    redirect: "manual",
  });
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
  const page = await (await fetch(`${world.app.url}/`, { headers: { cookie } })).text();
  const token = /name="token" value="([A-Za-z0-9_-]{43})"/.exec(page)![1]!;
  const done = await fetch(`${world.app.url}/dashboard/actions/clear-needs-human`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: world.app.url },
    body: new URLSearchParams({ token, repo, issue: "1", generation: "1", confirm: "1" }).toString(),
    redirect: "manual",
  });
  expect(done.status).toBe(200);
}

describe.skipIf(!redisProbe.available)("an ask a person cleared, as the agent tools see it", () => {
  beforeEach(async () => {
    world = await startWorld({ issues: [{ number: 1, title: "Agent work" }] });
  });
  afterEach(async () => {
    await client?.close().catch(() => {});
    client = undefined;
    await world.close();
    rmSync(worktree, { recursive: true, force: true });
  });

  it("the MCP server drops the ask from its lease file when the dashboard clears it: the next beats do not ask again", async () => {
    const call = await startMcp();
    expect((await call("claim_issue", { repo, issue: 1 })).isError).toBeFalsy();
    expect((await call("ask_human", { blocker: "which schema?" })).isError).toBeFalsy();
    expect(leaseFile()).toMatchObject({ needsHuman: "which schema?" });
    expect(await recordAfterNextBeat()).toMatchObject({ needsHuman: true });
    await world.sim.flush();

    await clearFromDashboard();
    await until("the ask gone from the lease file", () => (leaseFile()?.needsHuman ? undefined : true));
    expect(await recordAfterNextBeat()).not.toHaveProperty("needsHuman");
    expect(await recordAfterNextBeat()).not.toHaveProperty("needsHuman");
    await world.sim.flush();
    expect(world.sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);
  });
});
