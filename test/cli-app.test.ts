// The `claim-hold` CLI as a process against the real App (Redis store, GitHub faked with nock): takeover, run, signals, the pre-push hook.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ActorSchema, ErrorBodySchema, ResumeSchema } from "../src/agent/client/index.js";
import { parseClaimMarker } from "../src/domain/claim-marker.js";
import { MemoryFenceStore } from "../src/providers/memory/memory-fence-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import { type AppHarness, startApp } from "./support/app-harness.js";
import { IssueBoard } from "./support/github-fake/index.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const bin = resolve(import.meta.dirname, "../bin/claim-hold.js");
const repo = "octo/widgets";
const repoId = 1296269;
const installationId = 42;
const agentToken = "ghp_fleetbot00000000000000000000000001";
const agent = { login: "fleet-bot", id: 501, node_id: "U_fleet" };
/** Short durations (ttl ≥ 10 s is the floor), so the CLI's real wait for the grace beat is about 1 s. */
const configYaml = "taskClasses:\n  author:\n    ttl: 10s\n    reclaimAfter: 60s\n    heartbeat: 1s\n";
const ttlMs = 10_000;
const graceMs = 1_000;

const run = promisify(execFile);
const redisProbe = await probeRedis();

// --- what the CLI prints with --json, pinned field by field ---
const LeaseOutput = z.strictObject({
  subject: z.string(),
  repo: z.string(),
  issue: z.number().int(),
  leaseId: z.string().regex(/^\d+\.\d+\.\d+\.\d+$/),
  generation: z.number().int().positive(),
  taskClass: z.string(),
  branch: z.string().nullable(),
  ttlSeconds: z.number(),
  heartbeatIntervalSeconds: z.number(),
  expiresAt: z.string(),
  claimedAt: z.string(),
  sessionId: z.string(),
  status: z.enum(["held", "releasing", "superseded", "gone"]),
  statusDetail: z.string().optional(),
});
const ClaimOutput = z.strictObject({
  ok: z.literal(true),
  command: z.literal("claim"),
  created: z.boolean(),
  sessionId: z.string(),
  lease: LeaseOutput,
  resume: ResumeSchema.nullable(),
  overlaps: z.array(z.unknown()),
});
const KeepaliveOutput = z.strictObject({
  ok: z.boolean(),
  command: z.literal("keepalive"),
  subject: z.string(),
  end: z.enum(["released", "stopped", "superseded", "gone", "expired", "failed"]),
  message: z.string(),
});
const ErrorOutput = ErrorBodySchema.extend({ ok: z.literal(false), status: z.number().int() });
const VerifyOutput = z.strictObject({
  ok: z.literal(true),
  command: z.literal("verify"),
  subject: z.string(),
  holder: z.literal(true),
  generation: z.number().int(),
  state: z.string(),
  expiresAt: z.string(),
});
const StatusOutput = z.strictObject({
  ok: z.literal(true),
  command: z.literal("status"),
  sessionId: z.string(),
  leases: z.array(LeaseOutput.extend({ remote: z.looseObject({ holder: z.boolean() }) })),
});
const RunOutput = z.strictObject({
  ok: z.boolean(),
  command: z.literal("run"),
  subject: z.string(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  released: z.boolean(),
  outcome: z.enum(["completed", "handoff"]).optional(),
});
const InstallHookOutput = z.strictObject({
  ok: z.literal(true),
  command: z.literal("install-hook"),
  path: z.string(),
});

/** stdout must be exactly one JSON line: nothing else may be mixed into --json output. */
function parseJson<S extends z.ZodType>(schema: S, stdout: string): z.infer<S> {
  const lines = stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  return schema.parse(JSON.parse(lines[0]!));
}

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

let app: AppHarness;
let board: IssueBoard;
let redis: Redis;
let prefix: string;
let fences: MemoryFenceStore;
let temporary: string[] = [];
/** Every CLI process started, so a failed test never leaves one behind (a frozen keepalive least of all). */
let children: ChildProcess[] = [];

function env(sessionId: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // Built from scratch: the CLI must not inherit a session id from the runtime running the tests.
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CLAIM_HOLD_URL: app.url,
    GITHUB_TOKEN: agentToken,
    CLAIM_HOLD_SESSION_ID: sessionId,
    CLAIM_HOLD_RUNTIME: "claude-code",
    CLAIM_HOLD_HOST: "build-7",
    CLAIM_HOLD_HEARTBEAT_MS: "150",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Fleet Bot",
    GIT_AUTHOR_EMAIL: "fleet-bot@example.com",
    GIT_COMMITTER_NAME: "Fleet Bot",
    GIT_COMMITTER_EMAIL: "fleet-bot@example.com",
    ...extra,
  };
}

/** Starts the CLI; the App runs in this process, so a child is never waited on synchronously. */
function start(cwd: string, sessionId: string, args: string[], extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: env(sessionId, extra),
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<Result>((done) =>
    child.on("close", (code, signal) => done({ code, signal, stdout, stderr })),
  );
  return { child, done, output: () => ({ stdout, stderr }) };
}

function cli(cwd: string, sessionId: string, args: string[], extra: Record<string, string> = {}) {
  return start(cwd, sessionId, args, extra).done;
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function git(cwd: string, sessionId: string, ...args: string[]): Promise<Result> {
  try {
    const { stdout, stderr } = await run("git", args, { cwd, env: env(sessionId) });
    return { code: 0, signal: null, stdout: stdout.trim(), stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, signal: null, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

async function gitOk(cwd: string, ...args: string[]): Promise<string> {
  const result = await git(cwd, "none", ...args);
  if (result.code !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `claim-hold-cli-app-${label}-`));
  temporary.push(dir);
  return dir;
}

/** A worktree of its own per session: its own `.git/claim-hold/` lease state. */
async function worktree(label: string): Promise<string> {
  const dir = tempDir(label);
  await gitOk(dir, "init", "--quiet", "--initial-branch=main");
  return dir;
}

function leaseFiles(dir: string): string[] {
  const leases = join(dir, ".git", "claim-hold");
  return existsSync(leases) ? readdirSync(leases).filter((n) => n.endsWith(".json")) : [];
}

function leaseFile(dir: string, issue: number) {
  return LeaseOutput.omit({ subject: true })
    .extend({ version: z.literal(1), baseUrl: z.string(), token: z.string() })
    .parse(JSON.parse(readFileSync(join(dir, ".git", "claim-hold", `octo__widgets__${issue}.json`), "utf8")));
}

function markersOf(issue: number) {
  return board.issue(issue).comments.flatMap((c) => {
    const parsed = parseClaimMarker(c.body);
    return parsed?.kind === "marker" ? [parsed.marker] : [];
  });
}

function keyOf(issue: number) {
  return { installationId, repoId, issue };
}

/**
 * The takeover (docs/reference/http-api.md#post-apiv1claims--claim-re-claim-or-take-over) driven only
 * through the CLI: 202, the App's clock past the grace, 201.
 */
async function takeOver(cwd: string, sessionId: string, issue: number) {
  const claim = start(cwd, sessionId, ["claim", `${repo}#${issue}`, "--takeover", "--json"]);
  await until(() => claim.output().stderr.includes("pending"), "the 202 takeover_pending");
  expect(claim.output().stderr).toContain(`takeover of ${repo}#${issue} pending: waiting 1 s`);
  // The CLI waits ~1.25 s of real time before it retries; by then the App's grace has passed too.
  app.clock.now += graceMs + 1;
  const result = await claim.done;
  expect(result.code, result.stderr).toBe(0);
  return parseJson(ClaimOutput, result.stdout);
}

describe.skipIf(!redisProbe.available)("the CLI against the real App", () => {
  beforeAll(async () => {
    redis = await createTestRedis();
  });
  afterAll(() => {
    redis?.disconnect();
  });

  beforeEach(async () => {
    board = new IssueBoard(repo, repoId, installationId);
    board.install(configYaml);
    board.addUser(agentToken, agent);
    board.addIssue(12, "Fix the parser");
    board.addIssue(13, "Speed up the lexer");
    board.addIssue(14, "Document the grammar");
    board.addIssue(15, "Handle CRLF input");
    prefix = uniqueKeyPrefix("cli-app");
    fences = new MemoryFenceStore();
    app = await startApp({ stores: createRedisStores({ redis, keyPrefix: prefix }), fences });
  });

  afterEach(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    children = [];
    await app.close();
    const unused = board.unused();
    board.clear();
    await deleteKeysWithPrefix(redis, prefix);
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
    temporary = [];
    expect(unused).toEqual([]);
  });

  it("claims, keeps alive, is superseded by a second session, and the woken keepalive exits 4", async () => {
    const a = await worktree("a");
    const b = await worktree("b");

    // 1. Session A claims #12: the App assigns, labels and posts the claim comment.
    const claimed = await cli(a, "sess-a", ["claim", `${repo}#12`, "--json"]);
    expect(claimed.code, claimed.stderr).toBe(0);
    const claim = parseJson(ClaimOutput, claimed.stdout);
    expect(claim).toMatchObject({
      created: true,
      sessionId: "sess-a",
      resume: null,
      overlaps: [],
      lease: {
        subject: `${repo}#12`,
        leaseId: `${installationId}.${repoId}.12.1`,
        generation: 1,
        taskClass: "author",
        branch: "agent/sess-a/12-fix-the-parser",
        ttlSeconds: 10,
        heartbeatIntervalSeconds: 1,
        expiresAt: new Date(app.clock.now + ttlMs).toISOString(),
        status: "held",
      },
    });
    expect(claimed.stdout).not.toContain(leaseFile(a, 12).token);
    expect(board.issue(12)).toMatchObject({ assignees: [{ login: "fleet-bot" }], labels: ["agent:claimed"] });
    expect(markersOf(12)).toMatchObject([{ generation: 1, state: "active", actor: { sessionId: "sess-a" } }]);

    // 2. Its keepalive heartbeats: each beat moves lastHeartbeatAt to the App's clock, and costs
    //    no GitHub request (docs/reference/http-api.md#lease-calls).
    const githubCalls = board.calls.length;
    const keepalive = start(a, "sess-a", ["keepalive", "--json"]);
    const stores = createRedisStores({ redis, keyPrefix: prefix });
    app.clock.now += 4_000;
    await until(
      async () => (await stores.claims.get(keyOf(12)))?.lastHeartbeatAt === app.clock.now,
      "a heartbeat from the keepalive",
    );
    const verified = await cli(a, "sess-a", ["verify", "--json"]);
    expect(verified.code).toBe(0);
    expect(parseJson(VerifyOutput, verified.stdout)).toMatchObject({
      holder: true,
      generation: 1,
      state: "active",
    });
    expect(board.calls.slice(githubCalls)).toEqual([]);

    // 3. Session A's process is frozen (a laptop lid closed); the App's clock passes the ttl.
    keepalive.child.kill("SIGSTOP");
    // A heartbeat it sent just before it froze may still be on its way: let it land before the
    // clock moves, or it would count as a beat after the ttl.
    await settleHeartbeats(() => stores.claims.get(keyOf(12)));
    app.clock.now += ttlMs + 1_000;
    const held = await cli(b, "sess-b", ["claim", `${repo}#12`, "--json"]);
    expect(held.code).toBe(3);
    expect(parseJson(ErrorOutput.extend({ holder: ActorSchema }), held.stdout)).toMatchObject({
      error: "held",
      status: 409,
      state: "stale",
      holder: { login: "fleet-bot", sessionId: "sess-a" },
    });

    // 4. Session B takes over: 202, the grace passes, 201 resuming A's branch as generation 2.
    const takeover = await takeOver(b, "sess-b", 12);
    expect(takeover).toMatchObject({
      created: true,
      sessionId: "sess-b",
      lease: { generation: 2, branch: "agent/sess-a/12-fix-the-parser" },
      resume: {
        previousActor: { kind: "agent", login: "fleet-bot", sessionId: "sess-a", runtime: "claude-code" },
        previousGeneration: 1,
        branch: "agent/sess-a/12-fix-the-parser",
        linkedPullRequests: [],
      },
    });
    expect(markersOf(12)).toMatchObject([
      { generation: 1, state: "superseded" },
      { generation: 2, state: "active", actor: { sessionId: "sess-b" }, supersedes: 1 },
    ]);
    expect(
      board.issue(12).comments.some((c) => c.body.startsWith("↪️ Superseded claude-code session sess-a")),
    ).toBe(true);

    // 5. A wakes up: its next beat gets 409 superseded; keepalive exits 4 and records why.
    keepalive.child.kill("SIGCONT");
    const ended = await keepalive.done;
    expect(ended.code).toBe(4);
    expect(parseJson(KeepaliveOutput, ended.stdout)).toEqual({
      ok: false,
      command: "keepalive",
      end: "superseded",
      subject: `${repo}#12`,
      message:
        "keepalive: octo/widgets#12 was superseded by fleet-bot (claude-code session sess-b) (generation 2); stop working on it",
    });
    expect(leaseFile(a, 12)).toMatchObject({ status: "superseded", generation: 1 });

    // 6. The zombie's gate answers 4 with the successor; B's answers 0; A's status says why.
    const zombie = await cli(a, "sess-a", ["verify", "--json"]);
    expect(zombie.code).toBe(4);
    expect(parseJson(ErrorOutput.extend({ by: ActorSchema }), zombie.stdout)).toMatchObject({
      error: "superseded",
      status: 409,
      generation: 2,
      by: { sessionId: "sess-b" },
    });
    expect((await cli(b, "sess-b", ["verify"])).code).toBe(0);
    const status = await cli(a, "sess-a", ["status", "--json"]);
    expect(parseJson(StatusOutput, status.stdout).leases).toMatchObject([
      { subject: `${repo}#12`, status: "superseded", remote: { holder: false, error: "superseded" } },
    ]);
  });

  it("`run` releases completed on exit 0 and handoff (with the output) on failure", async () => {
    const c = await worktree("c");

    const completed = await cli(c, "sess-c", [
      "run",
      `${repo}#13`,
      "--json",
      "--",
      process.execPath,
      "-e",
      "console.log('tests pass on', process.env.CLAIM_HOLD_BRANCH)",
    ]);
    expect(completed.code, completed.stderr).toBe(0);
    expect(parseJson(RunOutput, completed.stdout)).toEqual({
      ok: true,
      command: "run",
      subject: `${repo}#13`,
      exitCode: 0,
      signal: null,
      released: true,
      outcome: "completed",
    });
    // The command's own output went to stderr: --json stdout is the result alone.
    expect(completed.stderr).toContain("tests pass on agent/sess-c/13-speed-up-the-lexer");
    expect(board.issue(13)).toMatchObject({ assignees: [], labels: [] });
    expect(markersOf(13)).toMatchObject([{ generation: 1, state: "completed" }]);
    expect(leaseFiles(c)).toEqual([]);

    const failed = await cli(c, "sess-c", [
      "run",
      `${repo}#13`,
      "--json",
      "--",
      process.execPath,
      "-e",
      "console.log('half of the lexer is done'); process.exit(3)",
    ]);
    expect(failed.code, failed.stderr).toBe(3);
    expect(parseJson(RunOutput, failed.stdout)).toMatchObject({
      ok: false,
      exitCode: 3,
      released: true,
      outcome: "handoff",
    });
    expect(board.issue(13)).toMatchObject({ assignees: [], labels: [] });
    expect(markersOf(13)).toMatchObject([
      { generation: 1, state: "completed" },
      { generation: 2, state: "released" },
    ]);
    const note = board.issue(13).comments.at(-1)!.body;
    expect(note).toMatch(/^📝 claude-code session sess-c on build-7 released generation 2 \(handoff\)/);
    expect(note).toContain("exited with code 3; last output:");
    expect(note).toContain("half of the lexer is done");
    expect(leaseFiles(c)).toEqual([]);
  });

  it("SIGTERM to `run` stops the command and releases with handoff", async () => {
    const d = await worktree("d");
    const running = start(d, "sess-d", [
      "run",
      `${repo}#14`,
      "--json",
      "--",
      process.execPath,
      "-e",
      "console.log('working'); setInterval(() => {}, 1000)",
    ]);
    await until(() => running.output().stderr.includes("working"), "the command to start");
    expect(board.issue(14).labels).toEqual(["agent:claimed"]);

    running.child.kill("SIGTERM");
    const result = await running.done;

    expect(result.code).toBe(143);
    expect(parseJson(RunOutput, result.stdout)).toMatchObject({
      ok: false,
      signal: "SIGTERM",
      released: true,
      outcome: "handoff",
    });
    expect(board.issue(14)).toMatchObject({ assignees: [], labels: [] });
    expect(markersOf(14)).toMatchObject([{ generation: 1, state: "released" }]);
    expect(board.issue(14).comments.at(-1)!.body).toContain("interrupted by SIGTERM");
    expect(leaseFiles(d)).toEqual([]);
  });

  it("a takeover reaches a `run` command through the live events and stops it long before its next heartbeat", async () => {
    const e = await worktree("e");
    const f = await worktree("f");
    // Beats once at start, then not for a minute: only the live stream can tell it of the takeover in time.
    const heartbeatMs = 60_000;
    const running = start(
      e,
      "sess-e",
      [
        "run",
        `${repo}#15`,
        "--json",
        "--",
        process.execPath,
        "-e",
        "process.on('SIGTERM', () => { console.log('stopped-at ' + Date.now()); process.exit(0) }); console.log('working'); setInterval(() => {}, 1000)",
      ],
      { CLAIM_HOLD_HEARTBEAT_MS: String(heartbeatMs) },
    );
    await until(() => running.output().stderr.includes("working"), "the command to start");
    const stores = createRedisStores({ redis, keyPrefix: prefix });
    await until(
      async () => (await stores.claims.get(keyOf(15)))?.lastHeartbeatAt === app.clock.now,
      "the run's first heartbeat",
    );
    const startedBeatAt = Date.now();
    app.clock.now += ttlMs + 1_000;

    // Session F takes over; the moment the store holds generation 2 is the takeover.
    let takenAt = 0;
    const watching = (async () => {
      while (takenAt === 0) {
        if ((await stores.claims.get(keyOf(15)))?.generation === 2) takenAt = Date.now();
        else await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await takeOver(f, "sess-f", 15);
    await watching;
    const result = await running.done;
    const stoppedAt = Number(/stopped-at (\d+)/.exec(result.stderr)?.[1]);
    const delayMs = stoppedAt - takenAt;
    console.log(
      `takeover → superseded child stopped: ${delayMs} ms (its next heartbeat was due in ${heartbeatMs - (takenAt - startedBeatAt)} ms)`,
    );

    expect(result.code).toBe(4);
    expect(
      parseJson(
        RunOutput.omit({ exitCode: true, signal: true, released: true }).extend({ end: z.string() }),
        result.stdout,
      ),
    ).toMatchObject({
      ok: false,
      end: "superseded",
    });
    expect(stoppedAt).toBeLessThan(startedBeatAt + heartbeatMs);
    expect(leaseFile(e, 15)).toMatchObject({ status: "superseded", generation: 1 });
  });

  it("the pre-push hook lets the holder push and blocks a superseded session", async () => {
    const remote = tempDir("remote");
    await gitOk(remote, "init", "--quiet", "--bare", "--initial-branch=main");
    const a = await worktree("hook-a");
    await gitOk(a, "commit", "--quiet", "--allow-empty", "-m", "start");
    await gitOk(a, "remote", "add", "origin", remote);
    await gitOk(a, "push", "--quiet", "origin", "main");

    // 1. A claims #15, installs the hook, and pushes its branch: verify + attest pass.
    const claim = parseJson(ClaimOutput, (await cli(a, "sess-ha", ["claim", `${repo}#15`, "--json"])).stdout);
    const branch = claim.lease.branch!;
    const hook = await cli(a, "sess-ha", ["install-hook", "--json"]);
    expect(hook.code).toBe(0);
    expect(parseJson(InstallHookOutput, hook.stdout).path).toBe(join(a, ".git", "hooks", "pre-push"));
    await gitOk(a, "checkout", "--quiet", "-b", branch);
    await gitOk(a, "commit", "--quiet", "--allow-empty", "-m", "half of the CRLF fix");
    const first = await gitOk(a, "rev-parse", "HEAD");
    const pushed = await git(a, "sess-ha", "push", "--quiet", "origin", branch);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect((await fences.evidence(keyOf(15), first, app.clock.now)).attestedGenerations).toEqual([1]);

    // 2. A goes silent past the ttl; B takes over from a clone of the remote.
    app.clock.now += ttlMs + 1_000;
    const b = tempDir("hook-b");
    await gitOk(b, "clone", "--quiet", remote, ".");
    const takeover = await takeOver(b, "sess-hb", 15);
    expect(takeover.lease).toMatchObject({ generation: 2, branch });

    // 3. The zombie commits and pushes: the hook's verify answers 4 and the push is refused.
    await gitOk(a, "commit", "--quiet", "--allow-empty", "-m", "zombie work");
    const zombieHead = await gitOk(a, "rev-parse", "HEAD");
    const refused = await git(a, "sess-ha", "push", "--quiet", "origin", branch);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("This lease was superseded");
    expect(refused.stderr).toContain("claim-hold: push refused: this session does not hold the claim");
    expect(await gitOk(remote, "rev-parse", branch)).toBe(first);
    expect((await fences.evidence(keyOf(15), zombieHead, app.clock.now)).attestedGenerations).toEqual([]);

    // 4. B continues A's branch with its own hook: its push passes and is attested by generation 2.
    expect((await cli(b, "sess-hb", ["install-hook"])).code).toBe(0);
    await gitOk(b, "checkout", "--quiet", branch);
    await gitOk(b, "commit", "--quiet", "--allow-empty", "-m", "finish the CRLF fix");
    const successorHead = await gitOk(b, "rev-parse", "HEAD");
    const successor = await git(b, "sess-hb", "push", "--quiet", "origin", branch);
    expect(successor.code, successor.stderr).toBe(0);
    expect(await gitOk(remote, "rev-parse", branch)).toBe(successorHead);
    expect((await fences.evidence(keyOf(15), successorHead, app.clock.now)).attestedGenerations).toEqual([2]);
  });
});

/** Waits until the record's last heartbeat stops moving (nothing in flight any more), at most 5 s. */
async function settleHeartbeats(read: () => Promise<{ lastHeartbeatAt: number } | null>): Promise<void> {
  let last = (await read())?.lastHeartbeatAt;
  for (let quiet = 0, tries = 0; quiet < 3 && tries < 50; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = (await read())?.lastHeartbeatAt;
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}
