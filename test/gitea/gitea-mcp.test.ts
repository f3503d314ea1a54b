// `claim-hold mcp` naming the Gitea forge (CLAIM_HOLD_FORGE or --forge), as a child process driven by the MCP SDK's client, against an App serving the Gitea simulator.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { Stores } from "../../src/providers/stores.js";
import { type AppHarness, startApp } from "../support/app-harness.js";
import {
  agentToken,
  type GiteaSimFixture,
  giteaInstallation,
  handMadeHooksGitea,
  startGiteaSimFixture,
} from "./sim-fixture.js";

const bin = resolve(import.meta.dirname, "../../bin/claim-hold.js");
const repo = "octo/widgets";
const clock = { now: Date.parse("2026-12-02T10:00:00Z") };
let fixture: GiteaSimFixture;
let stores: Stores;
let app: AppHarness;
const temporary: string[] = [];
let clients: Client[] = [];

beforeAll(async () => {
  fixture = await startGiteaSimFixture(clock);
  stores = createMemoryStores();
  app = await startApp({
    stores,
    now: clock.now,
    gitea: handMadeHooksGitea(fixture.sim),
  });
});
afterEach(async () => {
  for (const client of clients) await client.close().catch(() => {});
  clients = [];
});
afterAll(async () => {
  await app.close();
  await fixture.sim.close();
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

function makeWorktree(): string {
  const dir = mkdtempSync(join(tmpdir(), "claim-hold-gitea-mcp-"));
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

/** The MCP server of one session: the agent's Gitea token, the forge named by `env` or `args`. */
async function startMcp(sessionId: string, forge: { env?: Record<string, string>; args?: string[] }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", ...(forge.args ?? [])],
    cwd: makeWorktree(),
    stderr: "pipe",
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      GIT_CONFIG_NOSYSTEM: "1",
      CLAIM_HOLD_URL: app.url,
      GH_TOKEN: agentToken,
      CLAIM_HOLD_SESSION_ID: sessionId,
      CLAIM_HOLD_HEARTBEAT_MS: "60000",
      CLAIM_HOLD_LIVE_EVENTS: "0",
      ...forge.env,
    },
  });
  const client = new Client({ name: "claim-hold-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const recordOf = (issue: number) =>
  stores.claims.get({ installationId: giteaInstallation, repoId: fixture.repo.id, issue });

describe("claim-hold mcp on a Gitea-serving App", () => {
  it("CLAIM_HOLD_FORGE=gitea: claim_issue leases the Gitea issue (assignee, label, Gitea record) and claim_status reads it", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "By name", author: "octo" });
    const call = await startMcp("mcp-env", { env: { CLAIM_HOLD_FORGE: "gitea" } });
    const claimed = await call("claim_issue", { repo, issue: issue.number });
    expect(claimed.isError).toBeFalsy();
    expect(claimed.structuredContent).toMatchObject({
      sessionId: "mcp-env",
      lease: { subject: `${repo}#${issue.number}`, generation: 1, status: "held" },
    });
    expect(issue.assignees).toEqual(["fleet-bot"]);
    expect(await recordOf(issue.number)).toMatchObject({
      state: "active",
      actor: { login: "fleet-bot", sessionId: "mcp-env" },
    });
    const status = await call("claim_status", { repo, issue: issue.number });
    expect(status.structuredContent).toMatchObject({ thisSession: { holds: true, generation: 1 } });
    // The session ends: its lease is released on Gitea too (the keeper's release names the forge).
    await clients.pop()?.close();
    await until(async () => (await recordOf(issue.number))?.state !== "active", "the release");
    expect(issue.assignees).toEqual([]);
  });

  it("--forge gitea: claim_next_issue picks from the Gitea repository's queue", async () => {
    fixture.sim.state.addIssue(fixture.repo, { title: "Pick me", author: "octo" });
    const call = await startMcp("mcp-flag", { args: ["--forge", "gitea"] });
    const picked = await call("claim_next_issue", { repo });
    expect(picked.isError).toBeFalsy();
    const number = (picked.structuredContent as { picked: { issue: number } }).picked.issue;
    expect(picked.structuredContent).toMatchObject({
      queueEmpty: false,
      lease: { subject: `${repo}#${number}`, status: "held" },
    });
    expect(fixture.repo.issues.find((i) => i.number === number)?.assignees).toEqual(["fleet-bot"]);
    expect(await recordOf(number)).toMatchObject({ state: "active", actor: { sessionId: "mcp-flag" } });
  });

  it("without the forge the Gitea token is GitHub's: refused, and nothing reaches Gitea", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "Unnamed", author: "octo" });
    const mark = fixture.sim.requests.length;
    const call = await startMcp("mcp-none", {});
    const refused = await call("claim_issue", { repo, issue: issue.number });
    expect(refused.isError).toBe(true);
    expect(fixture.sim.routesSince(mark)).toEqual([]);
    expect(await recordOf(issue.number)).toBeNull();
  });
});
