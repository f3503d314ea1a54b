// `claim-hold next` and `queue` as processes against the real App on the GitHub simulator: the fleet loop of docs/agents.md.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claimMarkers, type E2eWorld, fleet, maintainer, repo, startWorld } from "./e2e/support/e2e-world.js";
import { type ChildOutput, outputOf } from "./support/child-output.js";
import { probeRedis } from "./support/redis.js";

const bin = resolve(import.meta.dirname, "../bin/claim-hold.js");
const redisProbe = await probeRedis();

let world: E2eWorld;
let temporary: string[];

function worktree(): string {
  const dir = mkdtempSync(join(tmpdir(), "claim-hold-next-"));
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

/** The environment of one agent of the fleet. */
function agentEnv(sessionId: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    CLAIM_HOLD_URL: world.app.url,
    GITHUB_TOKEN: fleet.token,
    CLAIM_HOLD_SESSION_ID: sessionId,
    CLAIM_HOLD_RUNTIME: "claude-code",
    CLAIM_HOLD_HOST: "build-7",
    CLAIM_HOLD_HEARTBEAT_MS: "200",
    GIT_CONFIG_NOSYSTEM: "1",
  };
}

/** One agent of the fleet: its own worktree and session id, the fleet's shared GitHub account. */
function cli(sessionId: string, args: string[], cwd = worktree()): Promise<ChildOutput> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: agentEnv(sessionId),
    stdio: ["ignore", "pipe", "pipe"],
  });
  return outputOf(child);
}

interface CliJson {
  picked: { issue: number };
  queue: unknown[];
  [field: string]: unknown;
}
const json = (result: ChildOutput) => JSON.parse(result.stdout.trim().split("\n").at(-1)!) as CliJson;

describe.skipIf(!redisProbe.available)("the fleet loop against the App and the simulator", () => {
  beforeEach(async () => {
    temporary = [];
    world = await startWorld({
      issues: [
        { number: 1, title: "Task 1" },
        { number: 2, title: "Task 2" },
        { number: 3, title: "Task 3" },
        { number: 4, title: "Held by a human", assignees: [maintainer.login] },
      ],
    });
    // Opened after installation: the webhook puts it in the index, ranked first by its p0 label.
    world.sim.addIssue(repo, { title: "Urgent", labels: ["p0"], author: maintainer.login });
    world.sim.addIssue(repo, { title: "Needs design", labels: ["needs-design"], author: maintainer.login });
    await world.sim.flush();
  });
  afterEach(async () => {
    await world.close();
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  });

  it("MCP list_free_issues answers the ranking `queue` prints; inside a clone both find the repository from origin", async () => {
    const clone = worktree();
    execFileSync("git", ["remote", "add", "origin", `https://github.com/${repo}.git`], { cwd: clone });

    const queue = await cli("reader", ["queue", "--json"], clone);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "mcp"],
      cwd: clone,
      env: agentEnv("reader"),
      stderr: "pipe",
    });
    const client = new Client({ name: "claim-hold-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const listed = await client.callTool({ name: "list_free_issues", arguments: { repo } });

      expect(queue.code).toBe(0);
      expect(listed.isError).toBeFalsy();
      const free = (listed.structuredContent as { free: Record<string, unknown>[] }).free;
      expect(free.map((f) => f.issue)).toEqual([5, 1, 2, 3, 6]);
      expect(free.map(({ issue, title, rank, reasons }) => ({ issue, title, rank, reasons }))).toEqual(
        json(queue).queue,
      );
      expect(free[0]).toMatchObject({ subject: `${repo}#5`, title: "Urgent", rank: 1 });
    } finally {
      await client.close();
    }
  });

  it("queue shows the App's ranking; N agents running next at once get N distinct issues, the next one exits 3", async () => {
    const queue = await cli("reader", ["queue", repo, "--json"]);
    expect(queue.code).toBe(0);
    expect(json(queue)).toMatchObject({
      queue: [
        { issue: 5, title: "Urgent", rank: 1, reasons: expect.arrayContaining(["priority:p0"]) },
        { issue: 1, rank: 2 },
        { issue: 2, rank: 3 },
        { issue: 3, rank: 4 },
        { issue: 6, rank: 5 },
      ],
      skipped: [{ issue: 4, reason: "human" }],
      truncated: false,
    });

    // Five agents at the same instant, with the fleet's label filter: four eligible issues, four picks.
    const agents = ["s1", "s2", "s3", "s4", "s5"];
    const results = await Promise.all(
      agents.map((id) => cli(id, ["next", repo, "--exclude-label", "needs-design", "--json"])),
    );
    const picked = results.filter((r) => r.code === 0).map((r) => json(r).picked.issue);
    const empty = results.filter((r) => r.code === 3);
    expect(picked.sort()).toEqual([1, 2, 3, 5]);
    expect(empty).toHaveLength(1);
    expect(json(empty[0]!)).toMatchObject({
      ok: false,
      error: "queue_empty",
      status: 409,
      skipped: expect.objectContaining({ human: 1, filtered: 1 }),
    });
    expect(results.map((r) => r.code).sort()).toEqual([0, 0, 0, 0, 3]);
    // Each pick is an ordinary claim on GitHub: assignee, label and claim comment.
    await world.sim.flush();
    for (const issue of [1, 2, 3, 5]) {
      expect(world.sim.issue(repo, issue)).toMatchObject({
        assignees: [fleet.login],
        labels: expect.arrayContaining(["agent:claimed"]),
      });
      expect(claimMarkers(world.sim, issue)).toEqual([{ generation: 1, state: "active" }]);
    }

    // The queue now shows them held (once its few seconds of read cache are over): why nothing is left.
    world.app.clock.now += 10_000;
    const after = json(await cli("reader", ["queue", repo, "--json"]));
    expect(after.queue).toEqual([{ issue: 6, title: "Needs design", rank: 1, reasons: expect.any(Array) }]);
  });

  it("next --capability gpu takes the issue labelled needs:gpu that the queue skips for others", async () => {
    const gpuIssue = world.sim.addIssue(repo, {
      title: "Train the model",
      labels: ["needs:gpu", "p0"],
      author: maintainer.login,
    }).number;
    await world.sim.flush();

    const plain = json(await cli("reader", ["queue", repo, "--json"]));
    expect(plain.skipped).toContainEqual({ issue: gpuIssue, reason: "missingCapability", missing: ["gpu"] });
    const asGpu = json(await cli("reader", ["queue", repo, "--capability", "gpu", "--json"]));
    // Both p0: after #5 (older), before everything unprioritized.
    expect(asGpu.queue[1]).toMatchObject({ issue: gpuIssue, rank: 2 });

    const cpu = await cli("cpu", ["next", repo, "--json"]);
    expect(cpu.code).toBe(0);
    expect(json(cpu).picked.issue).toBe(5);
    // The next best for a session without the capability is an unprioritized one, never the GPU issue.
    expect(json(await cli("cpu-2", ["next", repo, "--json"])).picked.issue).toBe(1);
    const gpu = await cli("gpu", ["next", repo, "--capability", "GPU", "--json"]);
    expect(gpu.code).toBe(0);
    expect(json(gpu).picked.issue).toBe(gpuIssue);
    await world.sim.flush();
    expect(claimMarkers(world.sim, gpuIssue)).toEqual([{ generation: 1, state: "active" }]);
  });

  it("next -- <cmd> runs the command on the picked issue, heartbeating, and releases it completed", async () => {
    const result = await cli("runner", [
      "next",
      repo,
      "--json",
      "--",
      process.execPath,
      "-e",
      "console.log('on', process.env.CLAIM_HOLD_SUBJECT); setTimeout(() => {}, 600)",
    ]);

    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`on ${repo}#5`);
    expect(json(result)).toMatchObject({
      ok: true,
      command: "next",
      subject: `${repo}#5`,
      picked: { issue: 5, rank: 1 },
      exitCode: 0,
      released: true,
      outcome: "completed",
    });
    await world.sim.flush();
    expect(world.sim.issue(repo, 5)).toMatchObject({ assignees: [], labels: ["p0"] });
    expect(claimMarkers(world.sim, 5)).toEqual([{ generation: 1, state: "completed" }]);
  });
});
