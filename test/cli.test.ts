// The `claim-hold` CLI as a process: real temp git repositories, the fake API, exit codes and --json output.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type FakeApi, startFakeApi } from "./support/fake-api.js";

const bin = resolve(import.meta.dirname, "../bin/claim-hold.js");
const repo = "octo/widgets";
const agentToken = "ghp_agenttoken";

let fake: FakeApi;
let work: string;
let temporary: string[];

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function baseEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // Built from scratch: the test must not inherit a session id from the runtime running it.
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CLAIM_HOLD_URL: fake.url,
    GITHUB_TOKEN: agentToken,
    CLAIM_HOLD_SESSION_ID: "sess-a",
    CLAIM_HOLD_HEARTBEAT_MS: "100",
    GIT_CONFIG_NOSYSTEM: "1",
    ...extra,
  };
}

/** Starts the CLI; the fake runs in this process, so the child must never be waited on synchronously. */
function start(args: string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? work,
    env: baseEnv(options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<Result>((resolvePromise) =>
    child.on("close", (code, signal) => resolvePromise({ code, signal, stdout, stderr })),
  );
  return { child, done, output: () => ({ stdout, stderr }) };
}

function cli(args: string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}) {
  return start(args, options).done;
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", env: baseEnv() }).trim();
}

function makeRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), "claim-hold-cli-"));
  temporary.push(dir);
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.email", "agent@example.com");
  git(dir, "config", "user.name", "Agent");
  writeFileSync(join(dir, "README.md"), "hello\n");
  git(dir, "add", ".");
  git(dir, "commit", "-q", "-m", "initial");
  return dir;
}

const heartbeats = () => fake.requests.filter((r) => r.path.endsWith("/heartbeat"));
const releases = () => fake.requests.filter((r) => r.path.endsWith("/release"));
const leaseFiles = (dir: string) =>
  readdirSync(join(dir, ".git", "claim-hold")).filter((name) => name.endsWith(".json"));

const Lease = z.looseObject({
  subject: z.string(),
  leaseId: z.string(),
  generation: z.number(),
  branch: z.string().nullable(),
  heartbeatIntervalSeconds: z.number(),
});
const ClaimOutput = z.strictObject({
  ok: z.literal(true),
  command: z.literal("claim"),
  created: z.boolean(),
  sessionId: z.string(),
  lease: Lease,
  resume: z.looseObject({ branch: z.string().nullish(), previousGeneration: z.number() }).nullable(),
  overlaps: z.array(z.unknown()),
});
const StatusOutput = z.strictObject({
  ok: z.literal(true),
  command: z.literal("status"),
  sessionId: z.string(),
  leases: z.array(Lease.extend({ remote: z.looseObject({ holder: z.boolean() }) })),
});
const VerifyOutput = z.looseObject({
  ok: z.literal(true),
  command: z.literal("verify"),
  subject: z.string(),
  holder: z.literal(true),
  generation: z.number(),
});
const ReleaseOutput = z.strictObject({
  ok: z.literal(true),
  command: z.literal("release"),
  subject: z.string(),
  outcome: z.enum(["handoff", "completed", "abandoned"]),
  generation: z.number(),
});
const ErrorOutput = z.looseObject({ ok: z.literal(false), error: z.string(), message: z.string() });
const QueueOutput = z.strictObject({
  ok: z.literal(true),
  command: z.literal("queue"),
  repo: z.string(),
  queue: z.array(
    z.strictObject({
      issue: z.number(),
      title: z.string().nullish(),
      rank: z.number(),
      reasons: z.array(z.string()),
    }),
  ),
  skipped: z.array(z.strictObject({ issue: z.number(), reason: z.string() })),
  truncated: z.boolean(),
});
const NextOutput = ClaimOutput.extend({
  command: z.literal("next"),
  picked: z.strictObject({ issue: z.number(), rank: z.number(), reasons: z.array(z.string()) }),
});

const parseJson = <S extends z.ZodType>(schema: S, stdout: string): z.infer<S> =>
  schema.parse(JSON.parse(stdout.trim()));

beforeEach(async () => {
  fake = await startFakeApi({ heartbeatIntervalSeconds: 1 });
  temporary = [];
  work = makeRepo();
});

afterEach(async () => {
  await fake.close();
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

describe("the forge of the agent's token", () => {
  it("is sent only when named: --forge wins over CLAIM_HOLD_FORGE", async () => {
    expect((await cli(["claim", `${repo}#12`, "--json"])).code).toBe(0);
    expect(fake.requests[0]).not.toHaveProperty("forge");
    // A Gitea token (a GitHub-format one is refused before it is sent: see cli-conventions).
    const gitea = { CLAIM_HOLD_FORGE: "gitea", GITHUB_TOKEN: "gitea-agent-token-0001" };
    fake.logins.set(gitea.GITHUB_TOKEN, "agent-bot");
    expect((await cli(["claim", `${repo}#13`, "--json"], { env: gitea })).code).toBe(0);
    expect(fake.requests.at(-1)).toMatchObject({ path: "/api/v1/claims", forge: "gitea" });
    const named = await cli(["claim", `${repo}#14`, "--json", "--forge", "github"], {
      env: { CLAIM_HOLD_FORGE: "gitea" },
    });
    expect(named.code).toBe(0);
    expect(fake.requests.at(-1)).toMatchObject({ path: "/api/v1/claims", forge: "github" });
  });
});

describe("claim → status → verify → release", () => {
  it("keeps the lease in a 0600 file, prints no token, and forgets the lease on release", async () => {
    const claimed = await cli(["claim", `${repo}#12`, "--json"]);
    expect(claimed.code).toBe(0);
    const claim = parseJson(ClaimOutput, claimed.stdout);
    expect(claim).toMatchObject({
      created: true,
      sessionId: "sess-a",
      lease: { subject: `${repo}#12`, generation: 1 },
    });
    expect(claim.lease.branch).toBe("agent/sess-a/12-work");
    // The session's secret key, made on first use, kept beside the lease files (0600), sent on every claim.
    const keyFile = join(work, ".git", "claim-hold", "session-keys", "sess-a");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const sessionKey = readFileSync(keyFile, "utf8").trim();
    expect(sessionKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // No branch is sent: the App names it (and on a takeover continues the incumbent's).
    expect(fake.requests[0]?.body).toEqual({
      repo,
      issue: 12,
      actor: { sessionId: "sess-a", host: hostname(), sessionKey },
      taskClass: "author",
      takeover: false,
    });
    const token = fake.claimOf(repo, 12)!.token;
    expect(claimed.stdout).not.toContain(token);
    expect(claimed.stdout + claimed.stderr).not.toContain(sessionKey);
    const file = join(work, ".git", "claim-hold", "octo__widgets__12.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8")).token).toBe(token);

    const status = await cli(["status", "--json"]);
    expect(status.code).toBe(0);
    expect(parseJson(StatusOutput, status.stdout).leases).toEqual([
      expect.objectContaining({ subject: `${repo}#12`, remote: expect.objectContaining({ holder: true }) }),
    ]);
    expect(status.stdout).not.toContain(token);

    const verified = await cli(["verify", "--json"]);
    expect(verified.code).toBe(0);
    expect(parseJson(VerifyOutput, verified.stdout)).toMatchObject({ subject: `${repo}#12`, generation: 1 });

    const released = await cli(["release", "--outcome", "completed", "--note", "merged", "--json"]);
    expect(released.code).toBe(0);
    expect(parseJson(ReleaseOutput, released.stdout)).toMatchObject({ outcome: "completed" });
    expect(releases().map((r) => r.body)).toEqual([{ outcome: "completed", note: "merged" }]);
    expect(leaseFiles(work)).toEqual([]);

    const after = await cli(["verify"]);
    expect(after.code).toBe(2);
    expect(after.stderr).toMatch(/^claim-hold verify: no lease in this worktree/);
  });

  it("shows the token only with --json --show-token", async () => {
    const claimed = await cli(["claim", `${repo}#12`, "--json", "--show-token"]);

    expect(parseJson(ClaimOutput, claimed.stdout).lease.token).toBe(fake.claimOf(repo, 12)!.token);
  });

  it("prints one readable line in text mode", async () => {
    const claimed = await cli([
      "claim",
      `${repo}#7`,
      "--class",
      "reviewer",
      "--branch",
      "agent/sess-a/7-docs",
    ]);

    expect(claimed.code).toBe(0);
    expect(claimed.stdout).toMatch(/^claimed octo\/widgets#7 · generation 1 · branch agent\/sess-a\/7-docs/);
    // People read relative times; --json keeps the exact ISO value.
    expect(claimed.stdout).toMatch(/ · expires in \d+ (s|min)\n$/);
    expect(fake.requests[0]?.body).toMatchObject({ taskClass: "reviewer", branch: "agent/sess-a/7-docs" });
  });

  it("persists a random session id per worktree when the runtime sets none, and reads runtime ids", async () => {
    const env = { CLAIM_HOLD_SESSION_ID: undefined };
    const first = parseJson(ClaimOutput, (await cli(["claim", `${repo}#1`, "--json"], { env })).stdout);
    const second = parseJson(ClaimOutput, (await cli(["claim", `${repo}#1`, "--json"], { env })).stdout);
    const stored = readFileSync(join(work, ".git", "claim-hold", "session-id"), "utf8").trim();

    expect(first.sessionId).toBe(stored);
    expect(second).toMatchObject({ sessionId: stored, created: false });

    const codex = await cli(["claim", `${repo}#2`, "--json"], { env: { ...env, CODEX_SESSION_ID: "cx-9" } });
    expect(parseJson(ClaimOutput, codex.stdout).sessionId).toBe("cx-9");
    expect(fake.requests.at(-1)?.body).toMatchObject({ actor: { sessionId: "cx-9", runtime: "codex" } });
  });

  it("proves its session on a re-claim (key and lease token); a running keepalive goes on with the new token", async () => {
    await cli(["claim", `${repo}#12`]);
    const first = fake.claimOf(repo, 12)!.token;
    const keepalive = start(["keepalive"]);
    await until(() => heartbeats().length >= 1, "a first heartbeat");

    const again = await cli(["claim", `${repo}#12`, "--json"]);
    expect(again.code).toBe(0);
    expect(parseJson(ClaimOutput, again.stdout)).toMatchObject({ created: false, lease: { generation: 1 } });
    const sessionKey = readFileSync(
      join(work, ".git", "claim-hold", "session-keys", "sess-a"),
      "utf8",
    ).trim();
    const claims = fake.requests.filter((r) => r.path === "/api/v1/claims").map((r) => r.body);
    expect(claims).toEqual([
      expect.objectContaining({ actor: { sessionId: "sess-a", host: hostname(), sessionKey } }),
      expect.objectContaining({
        actor: { sessionId: "sess-a", host: hostname(), sessionKey },
        leaseToken: first,
      }),
    ]);
    const second = fake.claimOf(repo, 12)!.token;
    expect(second).not.toBe(first);
    await until(
      () => heartbeats().some((r) => r.authorization === `Bearer ${second}`),
      "a heartbeat with the new token",
    );
    keepalive.child.kill("SIGTERM");
    const end = await keepalive.done;
    expect(end.code).toBe(0);
    expect(
      JSON.parse(readFileSync(join(work, ".git", "claim-hold", "octo__widgets__12.json"), "utf8")),
    ).toMatchObject({
      token: second,
      status: "held",
    });
    expect(again.stdout + again.stderr + end.stdout + end.stderr).not.toContain(sessionKey);
  });

  it("takes over a stale claim after the grace beat and keeps the incumbent's branch", async () => {
    const other = makeRepo();
    await cli(["claim", `${repo}#12`, "--branch", "agent/sess-b/12-fix"], {
      cwd: other,
      env: { CLAIM_HOLD_SESSION_ID: "sess-b" },
    });
    fake.makeStale(repo, 12);

    const takeover = await cli(["claim", `${repo}#12`, "--takeover", "--json"]);

    expect(takeover.code).toBe(0);
    expect(takeover.stderr).toContain("takeover of octo/widgets#12 pending");
    const body = parseJson(ClaimOutput, takeover.stdout);
    expect(body.lease).toMatchObject({ generation: 2, branch: "agent/sess-b/12-fix" });
    expect(body.resume).toMatchObject({ previousGeneration: 1, branch: "agent/sess-b/12-fix" });
  });
});

describe("exit codes", () => {
  it("exits 3 when another session or a human holds the issue", async () => {
    await cli(["claim", `${repo}#12`], { env: { CLAIM_HOLD_SESSION_ID: "sess-b" }, cwd: makeRepo() });
    fake.holdByHuman(repo, 13, "octocat");

    const held = await cli(["claim", `${repo}#12`, "--json"]);
    const human = await cli(["claim", `${repo}#13`]);

    expect(held.code).toBe(3);
    expect(parseJson(ErrorOutput, held.stdout)).toMatchObject({ error: "held", status: 409, generation: 1 });
    expect(human.code).toBe(3);
    expect(human.stderr).toBe("claim-hold claim: octo/widgets#13 is assigned to octocat\n");
  });

  it("exits 4 once superseded, for verify, heartbeat, attest and release", async () => {
    await cli(["claim", `${repo}#12`]);
    fake.supersede(repo, 12);

    const verify = await cli(["verify", "--json"]);
    expect(verify.code).toBe(4);
    expect(parseJson(ErrorOutput, verify.stdout)).toMatchObject({ error: "superseded", status: 409 });
    expect((await cli(["heartbeat", "--phase", "testing"])).code).toBe(4);
    expect((await cli(["attest"])).code).toBe(4);
    const status = parseJson(StatusOutput, (await cli(["status", "--json"])).stdout);
    expect(status.leases[0]).toMatchObject({
      status: "superseded",
      remote: { holder: false, error: "superseded" },
    });

    const release = await cli(["release"]);
    expect(release.code).toBe(4);
    expect(leaseFiles(work)).toEqual([]);
  });

  it("exits 4 when the lease is gone", async () => {
    await cli(["claim", `${repo}#12`]);
    const lease = fake.claimOf(repo, 12)!;
    await fetch(`${fake.url}/api/v1/leases/${lease.leaseId}/release`, {
      method: "POST",
      headers: { authorization: `Bearer ${lease.token}`, "content-type": "application/json" },
      body: JSON.stringify({ outcome: "handoff" }),
    });

    const heartbeat = await cli(["heartbeat"]);

    expect(heartbeat.code).toBe(4);
    expect(heartbeat.stderr).toBe("claim-hold heartbeat: the lease is gone\n");
  });

  it("exits 2 on usage errors and a missing environment", async () => {
    expect((await cli(["claim", "not-a-subject"])).code).toBe(2);
    expect((await cli(["claim", `${repo}#1`, "--bogus"])).code).toBe(2);
    expect((await cli(["release", "--outcome", "won"])).code).toBe(2);
    expect((await cli(["frobnicate"])).code).toBe(2);
    expect((await cli([])).code).toBe(2);
    expect((await cli(["claim", `${repo}#1`], { env: { GITHUB_TOKEN: undefined } })).stderr).toContain(
      "no GitHub token: set GH_TOKEN or GITHUB_TOKEN",
    );
    const noUrl = await cli(["claim", `${repo}#1`, "--json"], { env: { CLAIM_HOLD_URL: undefined } });
    expect(noUrl.code).toBe(2);
    expect(parseJson(ErrorOutput, noUrl.stdout)).toMatchObject({ error: "usage" });
  });

  it("asks for --issue when the worktree holds several leases", async () => {
    await cli(["claim", `${repo}#1`]);
    await cli(["claim", `${repo}#2`]);

    const ambiguous = await cli(["verify"]);
    const chosen = await cli(["verify", "--issue", `${repo}#2`, "--json"]);

    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("choose one with --issue");
    expect(parseJson(VerifyOutput, chosen.stdout).subject).toBe(`${repo}#2`);
  });

  it("exits 1 when the server cannot be reached, without leaking the token, with a stack only under --debug", async () => {
    const down = { CLAIM_HOLD_URL: await closedPortUrl() };

    const plain = await cli(["claim", `${repo}#1`], { env: down });
    const debug = await cli(["claim", `${repo}#1`, "--debug"], { env: down });

    expect(plain.code).toBe(1);
    expect(plain.stderr.trim().split("\n")).toHaveLength(1);
    expect(plain.stderr).toBe("claim-hold claim: POST /api/v1/claims failed: ECONNREFUSED\n");
    expect(debug.code).toBe(1);
    expect(debug.stderr).toContain("at ");
    expect(plain.stderr + debug.stderr).not.toContain(agentToken);
  });

  it("answers --help on every command", async () => {
    const helps: [string, Promise<Result>][] = [];
    for (const command of [
      "claim",
      "next",
      "heartbeat",
      "keepalive",
      "run",
      "verify",
      "attest",
      "install-hook",
      "release",
      "status",
      "queue",
    ]) {
      helps.push([command, cli([command, "--help"])]);
    }
    for (const [command, pending] of helps) {
      const help = await pending;
      expect(help.code, command).toBe(0);
      expect(help.stdout, command).toMatch(new RegExp(`^Usage: claim-hold ${command}`));
    }
  });
});

describe("keepalive", () => {
  it("heartbeats at the interval and exits 4 when the lease is superseded", async () => {
    await cli(["claim", `${repo}#12`]);
    const keepalive = start(["keepalive"]);

    await until(() => heartbeats().length >= 2, "two heartbeats");
    fake.supersede(repo, 12);
    const result = await keepalive.done;

    expect(result.code).toBe(4);
    expect(result.stderr).toContain("superseded");
  });

  it("stops cleanly on SIGTERM without releasing", async () => {
    await cli(["claim", `${repo}#12`]);
    const keepalive = start(["keepalive", "--json"]);

    await until(() => heartbeats().length >= 1, "a heartbeat");
    keepalive.child.kill("SIGTERM");
    const result = await keepalive.done;

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, end: "stopped" });
    expect(releases()).toEqual([]);
  });

  it("exits 0 when this session releases the lease", async () => {
    await cli(["claim", `${repo}#12`]);
    const keepalive = start(["keepalive"]);

    await until(() => heartbeats().length >= 1, "a heartbeat");
    await cli(["release"]);
    const result = await keepalive.done;

    expect(result.code).toBe(0);
    expect(result.stdout).toContain("released by this session");
  });

  it("survives transient failures, then exits 4 when the lease expires unreachable", async () => {
    await fake.close();
    // A TTL of a few intervals: the keepalive must start (a new Node process, slow on a loaded
    // machine) and beat at least once before the lease it read from the file expires.
    fake = await startFakeApi({ heartbeatIntervalSeconds: 1, ttlSeconds: 5 });
    await cli(["claim", `${repo}#12`]);
    const lease = fake.claimOf(repo, 12)!;
    const failures = Array.from({ length: 200 }, () => ({
      status: 503,
      body: { error: "store_unavailable" },
    }));
    fake.script("POST", `/api/v1/leases/${lease.leaseId}/heartbeat`, ...failures);
    const startedAt = Date.now();

    const result = await cli(["keepalive"]);

    expect(result.code).toBe(4);
    expect(result.stderr).toContain("heartbeat failed");
    expect(result.stderr).toContain("unreachable until the lease on octo/widgets#12 expired");
    expect(Date.now() - startedAt).toBeGreaterThan(1500);
    expect(heartbeats().length).toBeGreaterThan(3);
  });
});

describe("run", () => {
  it("passes the lease to the command and releases completed on exit 0", async () => {
    const result = await cli([
      "run",
      `${repo}#12`,
      "--",
      process.execPath,
      "-e",
      "console.log('lease', process.env.CLAIM_HOLD_LEASE_ID, process.env.CLAIM_HOLD_BRANCH)",
    ]);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`lease 1.42.12.1 agent/sess-a/12`);
    expect(releases().map((r) => r.body)).toEqual([{ outcome: "completed" }]);
    expect(fake.claimOf(repo, 12)?.state).toBe("completed");
    expect(leaseFiles(work)).toEqual([]);
  });

  it("releases with handoff and the last lines of output when the command fails", async () => {
    const script =
      "for (let i = 1; i <= 30; i++) console.log('line ' + i); console.error('boom'); process.exit(3)";

    const result = await cli(["run", `${repo}#12`, "--json", "--", process.execPath, "-e", script]);

    expect(result.code).toBe(3);
    const [release] = releases();
    expect(release?.body).toMatchObject({ outcome: "handoff" });
    const note = (release?.body as { note?: string } | undefined)?.note ?? "";
    expect(note).toMatch(/exited with code 3; last output:/);
    expect(note).toContain("line 30");
    expect(note).toContain("boom");
    expect(note).not.toContain("line 5\n");
    expect(JSON.parse(result.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      ok: false,
      command: "run",
      exitCode: 3,
      released: true,
      outcome: "handoff",
    });
  });

  it("keeps every GitHub token in sight out of the handoff note, whatever its shape and whichever one the CLI used", async () => {
    fake.logins.set("opaque-gh-token-0001", "agent-bot");
    const script =
      "console.log('env', process.env.GH_TOKEN, process.env.GITHUB_TOKEN, process.env.GH_ENTERPRISE_TOKEN); process.exit(3)";

    const result = await cli(["run", `${repo}#12`, "--", process.execPath, "-e", script], {
      env: {
        GH_TOKEN: "opaque-gh-token-0001",
        GITHUB_TOKEN: "opaque-other-token-0002",
        GH_ENTERPRISE_TOKEN: "opaque-ghe-token-0003",
      },
    });

    expect(result.code).toBe(3);
    const note = (releases()[0]?.body as { note?: string } | undefined)?.note ?? "";
    expect(note).toMatch(/^`.+` exited with code 3; last output:\nenv /);
    for (const token of ["opaque-gh-token-0001", "opaque-other-token-0002", "opaque-ghe-token-0003"]) {
      expect(note).not.toContain(token);
    }
  });

  it("keeps the lease alive while the command runs", async () => {
    const result = await cli([
      "run",
      `${repo}#12`,
      "--",
      process.execPath,
      "-e",
      "setTimeout(() => {}, 700)",
    ]);

    expect(result.code).toBe(0);
    expect(heartbeats().length).toBeGreaterThanOrEqual(3);
  });

  it("forwards SIGTERM to the command and releases with handoff", async () => {
    const pidFile = join(work, "child.pid");
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`;
    const run = start(["run", `${repo}#12`, "--", process.execPath, "-e", script]);

    await until(() => heartbeats().length >= 1 && safeRead(pidFile) !== "", "the command to start");
    run.child.kill("SIGTERM");
    const result = await run.done;

    expect(result.code).toBe(143);
    expect(releases().map((r) => r.body)).toEqual([
      { outcome: "handoff", note: expect.stringContaining("interrupted by SIGTERM") },
    ]);
    expect(isAlive(Number(safeRead(pidFile)))).toBe(false);
  });

  it("stops the command and exits 4 when superseded while it runs", async () => {
    const pidFile = join(work, "child.pid");
    // The command ignores SIGTERM, so only the SIGKILL after the grace ends it.
    const script = `process.on('SIGTERM', () => {}); require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`;
    const run = start(["run", `${repo}#12`, "--", process.execPath, "-e", script], {
      env: { CLAIM_HOLD_KILL_GRACE_MS: "300" },
    });

    await until(() => heartbeats().length >= 1 && safeRead(pidFile) !== "", "the command to start");
    fake.supersede(repo, 12);
    const result = await run.done;

    expect(result.code).toBe(4);
    expect(result.stderr).toContain("superseded");
    expect(releases()).toEqual([]);
    expect(isAlive(Number(safeRead(pidFile)))).toBe(false);
  });

  it("does not run the command when the issue is held", async () => {
    await cli(["claim", `${repo}#12`], { env: { CLAIM_HOLD_SESSION_ID: "sess-b" }, cwd: makeRepo() });
    const marker = join(work, "ran");

    const result = await cli([
      "run",
      `${repo}#12`,
      "--",
      process.execPath,
      "-e",
      `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`,
    ]);

    expect(result.code).toBe(3);
    expect(safeRead(marker)).toBe("");
  });
});

describe("install-hook", () => {
  it("lets the holder push (attesting the pushed sha) and refuses a superseded session's push", async () => {
    const remote = mkdtempSync(join(tmpdir(), "claim-hold-remote-"));
    temporary.push(remote);
    git(remote, "init", "-q", "--bare", "-b", "main");
    git(work, "remote", "add", "origin", remote);
    expect((await cli(["claim", `${repo}#12`])).code).toBe(0);

    const installed = await cli(["install-hook", "--json"]);
    expect(installed.code).toBe(0);
    const hook = join(work, ".git", "hooks", "pre-push");
    expect(JSON.parse(installed.stdout)).toEqual({ ok: true, command: "install-hook", path: hook });
    expect(statSync(hook).mode & 0o111).toBe(0o111);
    expect(readFileSync(hook, "utf8")).toContain(bin);

    git(work, "checkout", "-q", "-b", "agent/sess-a/12");
    writeFileSync(join(work, "work.txt"), "one\n");
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "one");
    const first = git(work, "rev-parse", "HEAD");
    await gitAsync(work, "push", "-q", "origin", "agent/sess-a/12");
    expect(git(remote, "rev-parse", "agent/sess-a/12")).toBe(first);
    expect(fake.claimOf(repo, 12)?.attested).toEqual([first]);

    fake.supersede(repo, 12);
    writeFileSync(join(work, "work.txt"), "two\n");
    git(work, "commit", "-q", "-am", "two");
    const refused = await gitAsync(work, "push", "origin", "agent/sess-a/12").then(
      () => null,
      (error: Error) => error,
    );

    expect(refused?.message).toContain("push refused");
    expect(git(remote, "rev-parse", "agent/sess-a/12")).toBe(first);
  });

  it("does not overwrite a foreign pre-push hook without --force", async () => {
    writeFileSync(join(work, ".git", "hooks", "pre-push"), "#!/bin/sh\nexit 0\n");

    expect((await cli(["install-hook"])).code).toBe(2);
    expect((await cli(["install-hook", "--force"])).code).toBe(0);
  });
});

describe("queue", () => {
  it("shows the App's ranked queue, then the skipped issues and why", async () => {
    fake.openIssues.set(repo, [
      { number: 1, title: "free one", assignees: [] },
      { number: 2, title: "held live", assignees: [] },
      { number: 4, title: "urgent", assignees: [], labels: ["p0"] },
      { number: 6, title: "assigned without a claim", assignees: ["someone"] },
    ]);
    await cli(["claim", `${repo}#2`], { env: { CLAIM_HOLD_SESSION_ID: "sess-b" }, cwd: makeRepo() });
    fake.requests.length = 0;

    const queue = await cli(["queue", repo, "--json"]);
    const text = await cli(["queue", repo, "--limit", "1"]);
    const asGpu = await cli(["queue", repo, "--capability", "gpu", "--capability", "python", "--json"]);

    expect(queue.code).toBe(0);
    expect(parseJson(QueueOutput, queue.stdout)).toEqual({
      ok: true,
      command: "queue",
      repo,
      queue: [
        { issue: 4, title: "urgent", rank: 1, reasons: ["priority:p0", "oldest"] },
        { issue: 1, title: "free one", rank: 2, reasons: ["oldest"] },
      ],
      skipped: [
        { issue: 2, reason: "held" },
        { issue: 6, reason: "human" },
      ],
      truncated: false,
    });
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(
      [
        "RANK  ISSUE           REASONS              TITLE",
        "1     octo/widgets#4  priority:p0, oldest  urgent",
        "… (more eligible issues: raise --limit)",
        "",
        "SKIPPED         WHY",
        "octo/widgets#2  held",
        "octo/widgets#6  human",
        "",
      ].join("\n"),
    );
    // The App's ranking, not one computed here: no GitHub call, no inventory join.
    expect(fake.requests.map((r) => [r.method, r.path, r.authorization])).toEqual([
      ["GET", "/api/v1/repos/octo/widgets/queue", `Bearer ${agentToken}`],
      ["GET", "/api/v1/repos/octo/widgets/queue?limit=1", `Bearer ${agentToken}`],
      ["GET", "/api/v1/repos/octo/widgets/queue?capabilities=gpu%2Cpython", `Bearer ${agentToken}`],
    ]);
    expect(asGpu.code).toBe(0);
  });

  it("refuses a bad --limit and a missing token before calling the App", async () => {
    expect((await cli(["queue", repo, "--limit", "0"])).code).toBe(2);
    expect((await cli(["queue", repo], { env: { GITHUB_TOKEN: undefined } })).code).toBe(2);
    expect(fake.requests).toEqual([]);
  });
});

describe("next", () => {
  beforeEach(() => {
    fake.openIssues.set(repo, [
      { number: 3, title: "three", assignees: [] },
      { number: 5, title: "five", assignees: [], labels: ["p1", "agent-ready"] },
      { number: 8, title: "eight", assignees: [], labels: ["agent-ready", "needs-design"] },
    ]);
  });

  it("claims the App's pick, keeps its lease like claim does, and sends only the SPEC's fields", async () => {
    const next = await cli(["next", repo, "--json"]);

    expect(next.code).toBe(0);
    const body = parseJson(NextOutput, next.stdout);
    expect(body).toMatchObject({
      created: true,
      sessionId: "sess-a",
      picked: { issue: 5, rank: 1, reasons: ["priority:p1", "oldest"] },
      lease: { subject: `${repo}#5`, generation: 1, branch: "agent/sess-a/5-work" },
      resume: null,
    });
    const sessionKey = readFileSync(
      join(work, ".git", "claim-hold", "session-keys", "sess-a"),
      "utf8",
    ).trim();
    expect(fake.requests.map((r) => [r.path, r.body])).toEqual([
      [
        "/api/v1/claims/next",
        { repo, actor: { sessionId: "sess-a", host: hostname(), sessionKey }, taskClass: "author" },
      ],
    ]);
    const token = fake.claimOf(repo, 5)!.token;
    expect(next.stdout + next.stderr).not.toContain(token);
    expect(leaseFiles(work)).toEqual(["octo__widgets__5.json"]);

    // The lease is an ordinary lease of this worktree: verify and release find it.
    expect((await cli(["verify"])).code).toBe(0);
    expect((await cli(["release", "--outcome", "completed"])).code).toBe(0);
    expect(fake.claimOf(repo, 5)?.state).toBe("completed");
  });

  it("passes label filters, the class, takeovers and scope on", async () => {
    const next = await cli([
      "next",
      repo,
      "--label",
      "agent-ready",
      "--exclude-label",
      "p1",
      "--exclude-label",
      "wontfix",
      "--capability",
      "gpu",
      "--capability",
      "Python",
      "--class",
      "reviewer",
      "--takeovers",
      "--scope",
      "src/**",
    ]);

    expect(next.code).toBe(0);
    expect(next.stdout).toMatch(
      /^claimed octo\/widgets#8 · rank 1 \(oldest\) · generation 1 · branch agent\/sess-a\/8-work · heartbeat every 1 s/,
    );
    expect(fake.requests[0]?.body).toMatchObject({
      labels: ["agent-ready"],
      excludeLabels: ["p1", "wontfix"],
      capabilities: ["gpu", "Python"],
      taskClass: "reviewer",
      includeTakeovers: true,
      scope: ["src/**"],
    });
    expect((await cli(["next", repo, "--class", "janitor"])).code).toBe(2);
  });

  it("exits 3 when nothing is eligible, saying why, and never runs the command", async () => {
    const marker = join(work, "ran");
    const filtered = await cli(["next", repo, "--label", "nope"]);
    const json = await cli(["next", repo, "--label", "nope", "--json"]);
    const withCommand = await cli([
      "next",
      repo,
      "--label",
      "nope",
      "--",
      process.execPath,
      "-e",
      `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`,
    ]);

    expect(filtered.code).toBe(3);
    expect(filtered.stderr).toBe(
      "claim-hold next: no eligible issue in octo/widgets (skipped: 3 filtered)\n",
    );
    expect(json.code).toBe(3);
    expect(parseJson(ErrorOutput, json.stdout)).toMatchObject({
      error: "queue_empty",
      status: 409,
      skipped: { held: 0, human: 0, blocked: 0, prOpen: 0, filtered: 3 },
    });
    expect(withCommand.code).toBe(3);
    expect(safeRead(marker)).toBe("");
    expect(leaseFiles(work)).toEqual([]);
  });

  it("with a command behaves like run: the picked subject in the environment, heartbeats, release completed", async () => {
    const result = await cli([
      "next",
      repo,
      "--json",
      "--",
      process.execPath,
      "-e",
      "console.log('working on', process.env.CLAIM_HOLD_SUBJECT, process.env.CLAIM_HOLD_BRANCH); setTimeout(() => {}, 500)",
    ]);

    expect(result.code).toBe(0);
    expect(result.stderr).toContain("working on octo/widgets#5 agent/sess-a/5-work");
    expect(result.stderr).toContain("claimed octo/widgets#5 (rank 1 (priority:p1, oldest); generation 1");
    expect(heartbeats().length).toBeGreaterThanOrEqual(2);
    expect(releases().map((r) => r.body)).toEqual([{ outcome: "completed" }]);
    expect(JSON.parse(result.stdout.trim())).toEqual({
      ok: true,
      command: "next",
      subject: `${repo}#5`,
      picked: { issue: 5, rank: 1, reasons: ["priority:p1", "oldest"] },
      exitCode: 0,
      signal: null,
      released: true,
      outcome: "completed",
    });
    expect(leaseFiles(work)).toEqual([]);
  });

  it("hands off with the command's exit code when the command fails; the handed-off issue goes back to the queue", async () => {
    const fails = await cli(["next", repo, "--", process.execPath, "-e", "process.exit(5)"]);
    const other = await cli(["next", repo, "--", process.execPath, "-e", "process.exit(0)"], {
      cwd: makeRepo(),
      env: { CLAIM_HOLD_SESSION_ID: "sess-b" },
    });

    expect(fails.code).toBe(5);
    expect(other.code).toBe(0);
    expect(fake.claimOf(repo, 5)).toMatchObject({ generation: 2, state: "completed" });
    expect(fake.claimOf(repo, 3)).toBeUndefined();
    expect(releases().map((r) => (r.body as { outcome: string }).outcome)).toEqual(["handoff", "completed"]);
  });
});

describe("claim refusals of duplicate and blocked work", () => {
  it("exits 3 on blocked and pr_open, and sends the overrides when asked", async () => {
    fake.script(
      "POST",
      "/api/v1/claims",
      {
        status: 409,
        body: {
          error: "blocked",
          message: "octo/widgets#12 is blocked by octo/widgets#4",
          blockers: [{ subject: "octo/widgets#4", state: "open" }],
        },
      },
      {
        status: 409,
        body: { error: "pr_open", message: "octo/widgets#12 is closed by open #40", pullRequests: [40] },
      },
    );

    const blocked = await cli(["claim", `${repo}#12`, "--json"]);
    const prOpen = await cli(["claim", `${repo}#12`]);
    const forced = await cli(["claim", `${repo}#12`, "--ignore-blockers", "--allow-open-pr"]);

    expect(blocked.code).toBe(3);
    expect(parseJson(ErrorOutput, blocked.stdout)).toMatchObject({
      error: "blocked",
      blockers: [{ subject: "octo/widgets#4", state: "open" }],
    });
    expect(prOpen.code).toBe(3);
    expect(prOpen.stderr).toBe("claim-hold claim: octo/widgets#12 is closed by open #40\n");
    expect(forced.code).toBe(0);
    expect(fake.requests.at(-1)?.body).toMatchObject({ ignoreBlockers: true, allowOpenPullRequest: true });
    expect(fake.requests[0]?.body).not.toHaveProperty("ignoreBlockers");
  });
});

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

function gitAsync(cwd: string, ...args: string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child: ChildProcess = spawn("git", args, {
      cwd,
      env: baseEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (c) => {
      output += c;
    });
    child.stderr?.on("data", (c) => {
      output += c;
    });
    child.on("close", (code) => (code === 0 ? resolvePromise(output) : reject(new Error(output))));
  });
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
