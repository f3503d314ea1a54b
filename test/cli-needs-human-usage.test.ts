// The CLI's needs-human and usage (docs/reference/cli.md#commands): `heartbeat --needs-human/--usage-usd`, and keepalive passing on the ask and CLAIM_HOLD_USAGE_FILE.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeApi, startFakeApi } from "./support/fake-api.js";

const bin = resolve(import.meta.dirname, "../bin/claim-hold.js");
const repo = "octo/widgets";

let fake: FakeApi;
let work: string;
let temporary: string[];
const children: ChildProcess[] = [];

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CLAIM_HOLD_URL: fake.url,
    GITHUB_TOKEN: "ghp_agenttoken",
    GITHUB_API_URL: fake.url,
    CLAIM_HOLD_SESSION_ID: "sess-a",
    CLAIM_HOLD_HEARTBEAT_MS: "100",
    GIT_CONFIG_NOSYSTEM: "1",
    ...extra,
  };
}

function start(args: string[], extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: work,
    env: env(extra),
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
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolveDone) =>
    child.on("close", (code) => resolveDone({ code, stdout, stderr })),
  );
  return { child, done };
}

const cli = (args: string[], extra: Record<string, string> = {}) => start(args, extra).done;
const heartbeatBodies = () =>
  fake.requests.filter((r) => r.path.endsWith("/heartbeat")).map((r) => r.body ?? {});
const leaseFile = () =>
  JSON.parse(readFileSync(join(work, ".git", "claim-hold", "octo__widgets__12.json"), "utf8")) as Record<
    string,
    unknown
  >;

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeEach(async () => {
  fake = await startFakeApi({ heartbeatIntervalSeconds: 1 });
  work = mkdtempSync(join(tmpdir(), "claim-hold-usage-"));
  temporary = [work];
  const git = (...args: string[]) => execFileSync("git", args, { cwd: work, env: env() });
  git("init", "-q", "-b", "main");
  git(
    "-c",
    "user.email=a@example.com",
    "-c",
    "user.name=A",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "initial",
  );
});

afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await fake.close();
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

describe("heartbeat --needs-human and --usage-usd", () => {
  it("sends the ask with its blocker and the cumulative usage, and keeps the ask for keepalive", async () => {
    expect((await cli(["claim", `${repo}#12`])).code).toBe(0);
    const beat = await cli([
      "heartbeat",
      "--needs-human",
      "need the staging password",
      "--usage-usd",
      "1.25",
    ]);
    expect(beat.code).toBe(0);
    expect(heartbeatBodies().at(-1)).toStrictEqual({
      needsHuman: true,
      blocker: "need the staging password",
      usage: { costUsd: 1.25 },
    });
    expect(leaseFile().needsHuman).toBe("need the staging password");

    // keepalive repeats the standing ask at every beat…
    const keepalive = start(["keepalive"]);
    const before = heartbeatBodies().length;
    await until(() => heartbeatBodies().length >= before + 2, "two keepalive beats");
    expect(heartbeatBodies().slice(before)).toContainEqual({
      needsHuman: true,
      blocker: "need the staging password",
    });
    keepalive.child.kill("SIGTERM");
    await keepalive.done;

    // …until a heartbeat without it withdraws it.
    expect((await cli(["heartbeat"])).code).toBe(0);
    expect(heartbeatBodies().at(-1)).toStrictEqual({});
    expect(leaseFile().needsHuman).toBeUndefined();
  });

  it("refuses a bad --usage-usd or an empty --needs-human as usage errors, sending nothing", async () => {
    await cli(["claim", `${repo}#12`]);
    const sent = heartbeatBodies().length;
    for (const args of [
      ["--usage-usd", "-1"],
      ["--usage-usd", "lots"],
      ["--needs-human", " "],
      ["--needs-human", "why", "--blocker", "other"],
    ]) {
      const result = await cli(["heartbeat", ...args]);
      expect(result.code, args.join(" ")).toBe(2);
    }
    expect(heartbeatBodies()).toHaveLength(sent);
  });
});

describe("keepalive with CLAIM_HOLD_USAGE_FILE", () => {
  it("passes the file's figures on at each beat, and beats without them while the file is unreadable", async () => {
    const usageFile = join(work, "usage.json");
    await cli(["claim", `${repo}#12`]);
    writeFileSync(usageFile, JSON.stringify({ costUsd: 0.4, tokens: 1200, model: "runtime's own field" }));
    const keepalive = start(["keepalive"], { CLAIM_HOLD_USAGE_FILE: usageFile });
    await until(() => heartbeatBodies().some((b) => JSON.stringify(b).includes("0.4")), "a beat with usage");
    expect(heartbeatBodies()).toContainEqual({ usage: { costUsd: 0.4, tokens: 1200 } });

    writeFileSync(usageFile, JSON.stringify({ costUsd: 0.9, tokens: 2500 }));
    await until(() => heartbeatBodies().some((b) => JSON.stringify(b).includes("0.9")), "the new figures");

    writeFileSync(usageFile, "{ half-writ");
    const before = heartbeatBodies().length;
    await until(() => heartbeatBodies().length >= before + 1, "a beat while unreadable");
    expect(heartbeatBodies().at(-1)).toStrictEqual({});
    keepalive.child.kill("SIGTERM");
    const result = await keepalive.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("unreadable (not JSON); heartbeat sent without usage");
  });

  it("one heartbeat sends the file's figures when --usage-usd is not given", async () => {
    const usageFile = join(work, "usage.json");
    await cli(["claim", `${repo}#12`]);
    writeFileSync(usageFile, JSON.stringify({ costUsd: 2 }));
    expect((await cli(["heartbeat"], { CLAIM_HOLD_USAGE_FILE: usageFile })).code).toBe(0);
    expect(heartbeatBodies().at(-1)).toStrictEqual({ usage: { costUsd: 2 } });
    expect((await cli(["heartbeat", "--usage-usd", "3"], { CLAIM_HOLD_USAGE_FILE: usageFile })).code).toBe(0);
    expect(heartbeatBodies().at(-1)).toStrictEqual({ usage: { costUsd: 3 } });
  });
});

describe("heartbeat while the lease is paused by its budget", () => {
  it("says so on the human line and passes paused on in --json", async () => {
    expect((await cli(["claim", `${repo}#12`])).code).toBe(0);
    const paused = {
      status: 200,
      body: { generation: 1, expiresAt: "2099-01-01T00:00:00.000Z", state: "waiting", paused: "budget" },
    };
    fake.script("POST", "/api/v1/leases/", paused, paused);
    const beat = await cli(["heartbeat", "--usage-usd", "2.5"]);
    expect(beat.code).toBe(0);
    expect(beat.stdout).toContain("· waiting · paused: budget reached, waiting for a person's /budget ·");
    const json = await cli(["heartbeat", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, command: "heartbeat", paused: "budget" });
  });
});
