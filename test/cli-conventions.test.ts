// The CLI's `gh`-like conventions as a process against the fake API: --version, help from the definitions, the
// repository from `git remote`, GH_TOKEN / GITHUB_TOKEN / `gh auth token`, a held refusal that says what to do,
// relative times and table headers; plus the pure pieces behind them, by tables.
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chooseRemote, repoFromRemoteUrl } from "../src/agent/actions/git-remote.js";
import { describeError } from "../src/agent/cli/describe-error.js";
import { humanSpan, relativeTime } from "../src/agent/cli/relative-time.js";
import { formatTable } from "../src/agent/cli/table.js";
import { ClaimHoldError } from "../src/agent/client/index.js";
import { type ChildOutput, outputOf } from "./support/child-output.js";
import { type FakeApi, startFakeApi } from "./support/fake-api.js";

const root = resolve(import.meta.dirname, "..");
const bin = join(root, "bin", "claim-hold.js");
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
const repo = "octo/widgets";
const agentToken = "ghp_agenttoken";

let fake: FakeApi;
let temporary: string[];

beforeEach(async () => {
  fake = await startFakeApi({ heartbeatIntervalSeconds: 1 });
  temporary = [];
});

afterEach(async () => {
  await fake.close();
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

/** The test's PATH with `extra` first (a fake `gh`); this machine has no real `gh` on PATH. */
function isolatedPath(extra: string[] = []): string {
  return [...extra, process.env.PATH ?? ""].join(delimiter);
}

/** Built from scratch: no token or session id leaks in from the environment running the test. */
function env(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {
    PATH: isolatedPath(),
    HOME: process.env.HOME,
    CLAIM_HOLD_URL: fake.url,
    GITHUB_TOKEN: agentToken,
    CLAIM_HOLD_SESSION_ID: "sess-a",
    GIT_CONFIG_NOSYSTEM: "1",
    ...extra,
  };
  for (const [key, value] of Object.entries(base)) if (value === undefined) delete base[key];
  return base;
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<ChildOutput> {
  return outputOf(spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] }));
}

function cli(args: string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}) {
  return run(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? tempDir("claim-hold-conv-"),
    env: env(options.env),
  });
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await run("git", args, { cwd, env: env() });
  if (result.code !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

/** A clone-like repository with `origin` (or none) pointing at `remoteUrl`. */
async function makeClone(remoteUrl?: string): Promise<string> {
  const dir = tempDir("claim-hold-clone-");
  await git(dir, "init", "-q", "-b", "main");
  if (remoteUrl) await git(dir, "remote", "add", "origin", remoteUrl);
  return dir;
}

/** A fake `gh` on PATH: `gh auth token` prints `token` (or fails like a logged-out gh), and records its call. */
function fakeGh(token: string | null): { dir: string; calls: () => string } {
  const dir = tempDir("claim-hold-gh-");
  const log = join(dir, "calls.log");
  const script = [
    "#!/bin/sh",
    `echo "$@" >> '${log}'`,
    token === null
      ? 'echo "You are not logged into any GitHub hosts. To log in, run: gh auth login" >&2; exit 1'
      : `[ "$1 $2" = "auth token" ] && echo '${token}' && exit 0; exit 1`,
  ].join("\n");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "gh"), `${script}\n`);
  chmodSync(join(dir, "gh"), 0o755);
  return {
    dir,
    calls: () => {
      try {
        return readFileSync(log, "utf8");
      } catch {
        return "";
      }
    },
  };
}

const authorizations = () => fake.requests.map((r) => r.authorization);

describe("--version and help", () => {
  it("prints the package's version", async () => {
    const result = await cli(["--version"]);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it("`tsx src/agent/main.ts --help` prints the help (main.ts runs when it is the entry script)", async () => {
    const tsx = join(root, "node_modules", "tsx", "dist", "cli.mjs");
    const result = await run(process.execPath, [tsx, join(root, "src", "agent", "main.ts"), "--help"], {
      cwd: root,
      env: env(),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: claim-hold \[options\] \[command\]/);
    for (const command of ["claim", "next", "queue", "verify", "mcp"]) {
      expect(result.stdout).toMatch(new RegExp(`^\\s+${command} `, "m"));
    }
  });

  it("generates each command's help from its options: every flag the command accepts is listed", async () => {
    const help = await cli(["claim", "--help"]);
    expect(help.code).toBe(0);
    for (const flag of ["--class <name>", "--takeover", "--scope <glob>", "--repo <owner/repo>", "--json"]) {
      expect(help.stdout).toContain(flag);
    }
    // And what is not listed is refused, as a usage error.
    const unknown = await cli(["claim", `${repo}#1`, "--phase", "x"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("claim-hold claim: unknown option '--phase'; see claim-hold claim --help\n");
  });

  it("no arguments: the help on stderr, exit 2; `help <command>` and `-h` exit 0", async () => {
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^Usage: claim-hold/);
    expect((await cli(["help", "queue"])).stdout).toMatch(/^Usage: claim-hold queue \[options\] \[repo\]/);
    expect((await cli(["-h"])).code).toBe(0);
  });
});

describe("the repository from git remote", () => {
  it.each([
    ["https://github.com/octo/widgets.git", { host: "github.com", repo: "octo/widgets" }],
    ["https://github.com/octo/widgets", { host: "github.com", repo: "octo/widgets" }],
    ["https://github.com/octo/widgets/", { host: "github.com", repo: "octo/widgets" }],
    ["https://user:secret@github.com/octo/widgets.git", { host: "github.com", repo: "octo/widgets" }],
    ["git@github.com:octo/widgets.git", { host: "github.com", repo: "octo/widgets" }],
    ["git@github.com:octo/widgets", { host: "github.com", repo: "octo/widgets" }],
    ["ssh://git@github.com/octo/widgets.git", { host: "github.com", repo: "octo/widgets" }],
    ["ssh://git@ghe.example.com:2222/octo/widgets.git", { host: "ghe.example.com", repo: "octo/widgets" }],
    ["https://GHE.example.com/team/my.repo.git", { host: "ghe.example.com", repo: "team/my.repo" }],
    ["git@ghe.example.com:team/widgets.git", { host: "ghe.example.com", repo: "team/widgets" }],
    ["/srv/git/widgets.git", undefined],
    ["file:///srv/git/widgets.git", undefined],
    ["https://github.com/octo", undefined],
    ["https://github.com/octo/widgets/tree/main", undefined],
    ["", undefined],
  ])("%s → %o", (url, expected) => {
    expect(repoFromRemoteUrl(url)).toEqual(expected);
  });

  it.each([
    // gh's order: a fork's clone claims in the repository it was forked from.
    [["origin", "upstream"], "upstream"],
    [["origin", "github"], "github"],
    [["origin", "mirror"], "origin"],
    [["upstream"], "upstream"],
    [["fork", "mirror"], undefined],
    [[], undefined],
  ])("remotes %o → %s", (remotes, expected) => {
    expect(chooseRemote(remotes)).toBe(expected);
  });

  it("`claim 12`, `queue` and `next` inside a clone use origin's repository; --repo wins over it", async () => {
    fake.openIssues.set(repo, [{ number: 3, title: "three", assignees: [] }]);
    const clone = await makeClone("git@github.com:octo/widgets.git");

    const claim = await cli(["claim", "12", "--json"], { cwd: clone });
    const queue = await cli(["queue", "--json"], { cwd: clone });
    const next = await cli(["next", "--json"], { cwd: clone, env: { CLAIM_HOLD_SESSION_ID: "sess-b" } });
    const elsewhere = await cli(["queue", "--repo", "other/thing", "--json"], { cwd: clone });

    expect(claim.code).toBe(0);
    expect(JSON.parse(claim.stdout)).toMatchObject({ lease: { subject: "octo/widgets#12" } });
    expect(queue.code).toBe(0);
    expect(JSON.parse(queue.stdout)).toMatchObject({ repo, queue: [{ issue: 3 }] });
    expect(next.code).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ picked: { issue: 3 } });
    expect(elsewhere.code).toBe(0);
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/v1/claims",
      "GET /api/v1/repos/octo/widgets/queue",
      "POST /api/v1/claims/next",
      "GET /api/v1/repos/other/thing/queue",
    ]);
    expect(fake.requests.find((r) => r.path === "/api/v1/claims/next")?.body).toMatchObject({ repo });
  });

  it("a full owner/repo#12 needs no clone; a different --repo beside it is a usage error", async () => {
    const outside = tempDir("claim-hold-noclone-");
    expect((await cli(["queue", repo], { cwd: outside })).code).toBe(0);
    const conflict = await cli(["claim", `${repo}#12`, "--repo", "other/thing"], { cwd: await makeClone() });
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toContain("--repo other/thing disagrees with octo/widgets");
  });

  it("exits 2 saying how to name the repository when there is neither --repo nor a GitHub remote", async () => {
    const noRemote = await makeClone();
    const localRemote = await makeClone("/srv/git/widgets.git");
    const outside = tempDir("claim-hold-noclone-");

    for (const [args, cwd] of [
      [["claim", "12"], noRemote],
      [["queue"], localRemote],
      [["next", "--json"], outside],
    ] as const) {
      const result = await cli([...args], { cwd });
      expect(result.code, args.join(" ")).toBe(2);
      expect(`${result.stdout}${result.stderr}`, args.join(" ")).toContain(
        "no repository given: pass owner/repo (or --repo owner/repo)",
      );
    }
    expect(fake.requests).toEqual([]);
  });
});

describe("the GitHub token", () => {
  it("GH_TOKEN wins over GITHUB_TOKEN; GITHUB_TOKEN alone is used; gh is not asked while either is set", async () => {
    fake.logins.set("ghp_fromghtoken", "gh-token-bot");
    const gh = fakeGh("ghp_fromghcli");
    const path = isolatedPath([gh.dir]);

    await cli(["queue", repo], { env: { GH_TOKEN: "ghp_fromghtoken", PATH: path } });
    await cli(["queue", repo], { env: { PATH: path } });

    expect(authorizations()).toEqual(["Bearer ghp_fromghtoken", `Bearer ${agentToken}`]);
    expect(gh.calls()).toBe("");
  });

  it("asks `gh auth token` when neither variable is set, and never prints the token", async () => {
    // Not shaped like a GitHub token, so only the CLI's own list of secrets can hide it.
    fake.logins.set("opaque-from-gh-cli", "gh-cli-bot");
    const gh = fakeGh("opaque-from-gh-cli");

    const result = await cli(["claim", `${repo}#4`], {
      cwd: await makeClone(),
      env: { GITHUB_TOKEN: undefined, PATH: isolatedPath([gh.dir]) },
    });
    const shown = await cli(["queue", repo, "--json", "--debug"], {
      env: { GITHUB_TOKEN: undefined, PATH: isolatedPath([gh.dir]) },
    });

    expect(result.code).toBe(0);
    expect(gh.calls()).toBe("auth token\nauth token\n");
    expect(authorizations()).toEqual(["Bearer opaque-from-gh-cli", "Bearer opaque-from-gh-cli"]);
    expect(`${result.stdout}${result.stderr}${shown.stdout}${shown.stderr}`).not.toContain(
      "opaque-from-gh-cli",
    );
  });

  it("asks gh for the GitHub Enterprise host of the clone's origin", async () => {
    fake.logins.set("ghp_fromghe", "ghe-bot");
    const gh = fakeGh("ghp_fromghe");
    const clone = await makeClone("git@ghe.example.com:octo/widgets.git");

    const result = await cli(["queue", "--json"], {
      cwd: clone,
      env: { GITHUB_TOKEN: undefined, PATH: isolatedPath([gh.dir]) },
    });

    expect(result.code).toBe(0);
    expect(gh.calls()).toBe("auth token --hostname ghe.example.com\n");
    expect(authorizations()).toEqual(["Bearer ghp_fromghe"]);
  });

  it("exits 2 naming all three sources when gh is missing or logged out; lease commands never ask gh", async () => {
    const loggedOut = fakeGh(null);

    const missing = await cli(["claim", `${repo}#4`], { env: { GITHUB_TOKEN: undefined } });
    const logged = await cli(["next", repo, "--json"], {
      env: { GITHUB_TOKEN: undefined, PATH: isolatedPath([loggedOut.dir]) },
    });
    const verify = await cli(["verify"], {
      cwd: await makeClone(),
      env: { GITHUB_TOKEN: undefined, PATH: isolatedPath([loggedOut.dir]) },
    });

    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      "claim-hold claim: no GitHub token: set GH_TOKEN or GITHUB_TOKEN (a token of the agent's GitHub account), or log in with `gh auth login`\n",
    );
    expect(logged.code).toBe(2);
    expect(JSON.parse(logged.stdout)).toMatchObject({ ok: false, error: "usage" });
    expect(logged.stderr).not.toContain("not logged into");
    expect(verify.code).toBe(2); // no lease in that clone
    expect(loggedOut.calls()).toBe("auth token\n");
    expect(fake.requests).toEqual([]);
  });
  it("with --forge gitea (or CLAIM_HOLD_FORGE) and neither variable set, exits 2 naming them and never asks gh for GitHub's token", async () => {
    const gh = fakeGh("ghp_fromghcli");
    const env = { GITHUB_TOKEN: undefined, PATH: isolatedPath([gh.dir]) };

    const flagged = await cli(["claim", `${repo}#4`, "--forge", "gitea"], { env, cwd: await makeClone() });
    const fromEnv = await cli(["next", repo, "--json"], { env: { ...env, CLAIM_HOLD_FORGE: "gitea" } });

    expect(flagged.code).toBe(2);
    expect(flagged.stderr).toBe(
      "claim-hold claim: no gitea token: set GH_TOKEN or GITHUB_TOKEN to a token of the agent's gitea account (`gh auth token` is GitHub's and is not asked)\n",
    );
    expect(fromEnv.code).toBe(2);
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ ok: false, error: "usage" });
    expect(gh.calls()).toBe("");
    expect(fake.requests).toEqual([]);
  });
  it("with --forge gitea and a GitHub token in GH_TOKEN, exits 2 and sends it nowhere", async () => {
    const env = { GH_TOKEN: "ghp_aGitHubToken", GITHUB_TOKEN: undefined, PATH: isolatedPath([]) };
    const run = await cli(["claim", `${repo}#4`, "--forge", "gitea"], { env, cwd: await makeClone() });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "claim-hold claim: GH_TOKEN or GITHUB_TOKEN holds a GitHub token: set it to a token of the agent's gitea account\n",
    );
    expect(fake.requests).toEqual([]);
  });
});

describe("what people read", () => {
  it("a held issue names its holder, when it becomes reclaimable, and --takeover once the holder is not live", async () => {
    await cli(["claim", `${repo}#12`], { env: { CLAIM_HOLD_SESSION_ID: "sess-b" }, cwd: await makeClone() });

    const live = await cli(["claim", `${repo}#12`], { cwd: await makeClone() });
    fake.makeStale(repo, 12);
    const stale = await cli(["claim", `${repo}#12`], { cwd: await makeClone() });
    const json = await cli(["claim", `${repo}#12`, "--json"], { cwd: await makeClone() });

    expect(live.code).toBe(3);
    expect(live.stderr).toMatch(
      /^claim-hold claim: octo\/widgets#12 is held by agent-bot \(holder agent-bot \(session sess-b\) · state active · last heartbeat (now|\d+ s ago) · reclaimable in \d+ s\); pick other work \(claim-hold next\), or claim again with --takeover once the holder goes stale\n$/,
    );
    expect(stale.code).toBe(3);
    expect(stale.stderr).toContain("· state stale · ");
    expect(stale.stderr).toContain(
      "; the holder is not live: take it over with --takeover (claim-hold claim octo/widgets#12 --takeover)\n",
    );
    // --json keeps the exact values.
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      error: "held",
      holder: { login: "agent-bot", sessionId: "sess-b" },
      reclaimableAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      subject: "octo/widgets#12",
    });
  });

  it("status is a table with a header row and relative expiry", async () => {
    const clone = await makeClone();
    await cli(["claim", `${repo}#7`, "--branch", "agent/sess-a/7"], { cwd: clone });

    const status = await cli(["status"], { cwd: clone });

    expect(status.code).toBe(0);
    const lines = status.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^session sess-a \(from /);
    expect(lines[1]).toMatch(/^ISSUE\s+GEN\s+CLASS\s+BRANCH\s+SERVER$/);
    expect(lines[2]).toMatch(
      /^octo\/widgets#7\s+1\s+author\s+agent\/sess-a\/7\s+holder, active, expires in \d+ s$/,
    );
  });
});

describe("mcp --help", () => {
  it("lists exactly the tools the MCP server lists to a client", async () => {
    const clone = await makeClone();
    const help = await cli(["mcp", "--help"]);
    const section = help.stdout.slice(help.stdout.indexOf("Tools:\n") + "Tools:\n".length);
    const helpTools = section
      .split("\n")
      .map((line) => /^ {2}([a-z_]+) {2,}/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined);

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "mcp"],
      cwd: clone,
      env: env() as Record<string, string>,
      stderr: "pipe",
    });
    const client = new Client({ name: "claim-hold-help-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(helpTools.length).toBeGreaterThan(0);
      expect(helpTools.sort()).toEqual(tools.map((tool) => tool.name).sort());
      expect(helpTools).toContain("ask_human");
    } finally {
      await client.close();
    }
  });
});

describe("relativeTime and humanSpan", () => {
  const now = Date.parse("2026-05-01T12:00:00.000Z");
  it.each([
    ["2026-05-01T12:00:20.000Z", "in 20 s"],
    ["2026-05-01T12:00:00.200Z", "now"],
    ["2026-05-01T11:59:15.000Z", "45 s ago"],
    ["2026-05-01T12:04:00.000Z", "in 4 min"],
    ["2026-05-01T12:01:29.000Z", "in 89 s"],
    ["2026-05-01T13:29:00.000Z", "in 89 min"],
    ["2026-05-01T13:30:00.000Z", "in 2 h"],
    ["2026-05-01T09:00:00.000Z", "3 h ago"],
    ["2026-05-04T12:00:00.000Z", "in 3 d"],
    [now + 20_000, "in 20 s"],
    [Math.floor(now / 1000) + 120, "in 2 min"],
    ["not a time", "not a time"],
    [null, "unknown"],
  ])("%s → %s", (at, expected) => {
    expect(relativeTime(at, now)).toBe(expected);
  });

  it.each([
    [0, "0 s"],
    [89_000, "89 s"],
    [90_000, "2 min"],
    [89 * 60_000, "89 min"],
    [35 * 3_600_000, "35 h"],
    [48 * 3_600_000, "2 d"],
  ])("%d ms → %s", (ms, expected) => {
    expect(humanSpan(ms)).toBe(expected);
  });
});

describe("describeError (the line a refused claim prints)", () => {
  const now = Date.parse("2026-05-01T12:00:00.000Z");
  const holder = { kind: "agent", login: "fleet-bot", runtime: "codex", sessionId: "b71d" };
  const held = (details: Record<string, unknown>) =>
    new ClaimHoldError({ status: 409, code: "held", message: "o/r#12 is held by another session.", details });
  const times = { lastHeartbeatAt: "2026-05-01T11:59:40.000Z", reclaimableAt: "2026-05-01T12:04:00.000Z" };
  it.each([
    [
      "a live holder",
      held({ holder, state: "active", ...times }),
      "o/r#12 is held by another session (holder fleet-bot (codex session b71d) · state active · last heartbeat 20 s ago · reclaimable in 4 min); pick other work (claim-hold next), or claim again with --takeover once the holder goes stale",
    ],
    [
      "a stale holder, subject known",
      held({ holder, state: "stale", ...times, subject: "o/r#12" }),
      "o/r#12 is held by another session (holder fleet-bot (codex session b71d) · state stale · last heartbeat 20 s ago · reclaimable in 4 min); the holder is not live: take it over with --takeover (claim-hold claim o/r#12 --takeover)",
    ],
    [
      "a reclaimable holder with another claimant's takeover pending",
      held({ holder, state: "reclaimable", ...times, takeoverPendingBy: { login: "other-bot" } }),
      "o/r#12 is held by another session (holder fleet-bot (codex session b71d) · state reclaimable · last heartbeat 20 s ago · reclaimable in 4 min); a takeover by other-bot is pending",
    ],
    ["held without details", held({}), "o/r#12 is held by another session."],
    [
      "another refusal",
      new ClaimHoldError({ status: 409, code: "human_held", message: "o/r#12 is held by @octocat." }),
      "o/r#12 is held by @octocat.",
    ],
    ["not a ClaimHoldError", new Error("boom"), "boom"],
  ])("%s", (_, error, expected) => {
    expect(describeError(error, now)).toBe(expected);
  });
});

describe("formatTable", () => {
  it("aligns columns under the header and leaves the last column unpadded", () => {
    expect(
      formatTable(
        ["RANK", "ISSUE", "TITLE"],
        [
          ["1", "o/r#12", "fix the parser"],
          ["10", "o/r#3", ""],
        ],
      ),
    ).toEqual(["RANK  ISSUE   TITLE", "1     o/r#12  fix the parser", "10    o/r#3"]);
  });
});
