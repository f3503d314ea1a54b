// Writes docs/transcripts/cli-takeover.md: a two-session takeover driven only through the CLI, against the real App and the GitHub simulator.
//
//   npx tsx scripts/cli-transcript.ts [output.md]
//
// Pipeline: 1. start the simulator (octo/widgets, one fleet account) and the App (Redis when reachable,
// else the memory store); 2. run each step as `node bin/claim-hold.js …` or `git …` in one of two
// worktrees, recording command, output and exit code; 3. move the App's clock where the story says
// time passes (the CLI itself waits out the takeover grace in real time); 4. write the Markdown.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { uniqueKeyPrefix } from "../tools/local-stack/redis-keys.js";
import { defaultApp, generateCredentials, startLocalStack } from "../tools/local-stack/start-local-stack.js";

const root = resolve(import.meta.dirname, "..");
const bin = join(root, "bin", "claim-hold.js");
const output = resolve(process.argv[2] ?? join(root, "docs", "transcripts", "cli-takeover.md"));
const repo = "octo/widgets";
const fleet = { login: "fleet-bot", id: 501, token: "ghp_fleetbot000000000000000000000000demo" };
const config = "taskClasses:\n  author: { ttl: 30s, reclaimAfter: 120s, heartbeat: 5s }\n";

interface Step {
  who: string;
  command: string;
  text: string;
  code: number | null;
  note?: string;
}

const steps: Step[] = [];
const narration: { before: number; text: string }[] = [];
const say = (text: string) => narration.push({ before: steps.length, text });

async function main() {
  // 1. The world. The App's clock is the script's: it moves where the story says time passes.
  const clock = { now: Date.now() };
  const startStack = (onRedis: boolean) =>
    startLocalStack({
      redis: onRedis ? { kind: "shared", keyPrefix: uniqueKeyPrefix("transcript") } : { kind: "memory" },
      credentials: generateCredentials(1),
      startApp: defaultApp({
        disabledJobs: ["janitor"],
        throttle: false,
        sleep: async () => {},
        now: () => clock.now,
        logLevel: "error",
      }),
    });
  const onRedis = await startStack(true).catch(() => undefined);
  const stack = onRedis ?? (await startStack(false));
  const { sim } = stack;
  const app = { url: stack.app.url, clock };
  sim.seed({
    users: [
      { login: fleet.login, id: fleet.id, tokens: [fleet.token] },
      { login: "alice", id: 601, tokens: [] },
    ],
    repos: [
      {
        fullName: repo,
        id: 1296269,
        files: { ".github/claim-hold.yml": config },
        collaborators: { [fleet.login]: "write", alice: "maintain" },
        issues: [
          { number: 11, title: "Flaky lexer test", author: "alice" },
          { number: 12, title: "Handle CRLF line endings in the parser", author: "alice" },
          { number: 13, title: "Document the grammar", author: "alice" },
        ],
      },
    ],
    installations: [{ id: 42, account: "octo", repos: [repo] }],
  });
  await sim.flush();

  const work = mkdtempSync(join(tmpdir(), "claim-hold-transcript-"));
  const places = {
    remote: join(work, "widgets.git"),
    a: join(work, "session-a"),
    b: join(work, "session-b"),
  };
  const tidy = (text: string) =>
    text
      .replaceAll(places.remote, "~/widgets.git")
      .replaceAll(places.a, "~/session-a")
      .replaceAll(places.b, "~/session-b")
      .replaceAll(app.url, "$CLAIM_HOLD_URL");

  const sessions = {
    a: {
      dir: places.a,
      env: {
        CLAIM_HOLD_SESSION_ID: "5f0c9a1e",
        CLAIM_HOLD_RUNTIME: "claude-code",
        CLAIM_HOLD_HOST: "build-7",
      },
    },
    b: {
      dir: places.b,
      env: { CLAIM_HOLD_SESSION_ID: "b71d3e04", CLAIM_HOLD_RUNTIME: "codex", CLAIM_HOLD_HOST: "build-8" },
    },
  };
  type Who = keyof typeof sessions;
  const envOf = (who: Who): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CLAIM_HOLD_URL: app.url,
    GITHUB_TOKEN: fleet.token,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "fleet-bot",
    GIT_AUTHOR_EMAIL: "fleet-bot@users.noreply.github.com",
    GIT_COMMITTER_NAME: "fleet-bot",
    GIT_COMMITTER_EMAIL: "fleet-bot@users.noreply.github.com",
    ...sessions[who].env,
  });

  /** Starts one command in a session's worktree; output is kept in arrival order. */
  function launch(who: Who, program: "claim-hold" | "git", args: string[], cwd = sessions[who].dir) {
    const argv = program === "claim-hold" ? [process.execPath, bin, ...args] : ["git", ...args];
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env: envOf(who), stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (chunk) => {
      text += chunk;
    });
    child.stderr.on("data", (chunk) => {
      text += chunk;
    });
    const done = new Promise<Step>((done) =>
      child.on("close", (code) =>
        done({ who, command: [program, ...args.map(shellWord)].join(" "), text: tidy(text), code }),
      ),
    );
    return { child, done, text: () => text };
  }

  async function step(who: Who, program: "claim-hold" | "git", args: string[], note?: string) {
    const result = await launch(who, program, args).done;
    steps.push({ ...result, ...(note ? { note } : {}) });
    return result;
  }

  async function quietGit(cwd: string, ...args: string[]) {
    const result = await launch("a", "git", args, cwd).done;
    if (result.code !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.text}`);
  }

  let background: ChildProcess | undefined;
  try {
    // 2. Two worktrees on one remote.
    mkdirSync(places.a);
    await quietGit(work, "init", "--quiet", "--bare", "--initial-branch=main", places.remote);
    await quietGit(places.a, "init", "--quiet", "--initial-branch=main");
    await quietGit(places.a, "commit", "--quiet", "--allow-empty", "-m", "Initial commit");
    await quietGit(places.a, "remote", "add", "origin", places.remote);
    await quietGit(places.a, "push", "--quiet", "origin", "main");
    await quietGit(work, "clone", "--quiet", places.remote, places.b);

    say("Session A (Claude Code on build-7) looks for work and claims #12.");
    await step("a", "claim-hold", ["queue", repo]);
    await step("a", "claim-hold", ["claim", `${repo}#12`]);
    const lease = JSON.parse((await launch("a", "claim-hold", ["status", "--json"]).done).text) as {
      leases: { branch: string }[];
    };
    const branch = lease.leases[0]!.branch;
    await step("a", "claim-hold", ["install-hook"]);
    await quietGit(places.a, "checkout", "--quiet", "-b", branch);
    await quietGit(
      places.a,
      "commit",
      "--quiet",
      "--allow-empty",
      "-m",
      "parser: normalise CRLF in the tokenizer",
    );
    await step("a", "git", ["push", "origin", branch], "the pre-push hook runs verify + attest");

    say(
      "A keeps its lease alive in the background (`claim-hold keepalive &`), then its machine is suspended.",
    );
    const keepalive = launch("a", "claim-hold", ["keepalive"]);
    background = keepalive.child;
    await new Promise((r) => setTimeout(r, 500));
    keepalive.child.kill("SIGSTOP");
    app.clock.now += 35_000;
    say("35 s pass on the App's clock with no heartbeat from A: its claim is stale (ttl 30 s).");
    await step("a", "claim-hold", ["status"]);

    say(
      "Session B (Codex on build-8), same GitHub account, sees #12 skipped as held; its claim is refused " +
        "with who holds it and since when, and the advice to take it over, which B does.",
    );
    await step("b", "claim-hold", ["queue", repo]);
    await step("b", "claim-hold", ["claim", `${repo}#12`]);
    const takeover = launch("b", "claim-hold", ["claim", `${repo}#12`, "--takeover"]);
    const deadline = Date.now() + 15_000;
    while (!takeover.text().includes("pending") && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 25));
    // The CLI sleeps the grace beat (5 s) in real time; the App's clock is moved past it too.
    app.clock.now += 5_001;
    steps.push({ ...(await takeover.done), note: "the CLI waits out the incumbent's grace beat itself" });
    await step("b", "claim-hold", ["status"]);

    say("A wakes up. Its keepalive's next heartbeat is refused, and everything else of A's is fenced.");
    keepalive.child.kill("SIGCONT");
    steps.push({
      ...(await keepalive.done),
      command: "claim-hold keepalive   # the background job, on wake-up",
    });
    background = undefined;
    await step("a", "claim-hold", ["verify", "--json"], "the same gate, machine-readable: who holds #12 now");
    await quietGit(
      places.a,
      "commit",
      "--quiet",
      "--allow-empty",
      "-m",
      "parser: zombie work after the takeover",
    );
    await step("a", "git", ["push", "origin", branch], "refused by the hook: A no longer holds #12");

    say("B continues A's branch (the App resumed it), pushes with its own hook, and finishes.");
    await step("b", "claim-hold", ["install-hook"]);
    await quietGit(places.b, "fetch", "--quiet", "origin");
    await quietGit(places.b, "checkout", "--quiet", branch);
    await quietGit(places.b, "commit", "--quiet", "--allow-empty", "-m", "parser: CRLF tests");
    await step("b", "git", ["push", "origin", branch]);
    await step("b", "claim-hold", [
      "release",
      "--outcome",
      "completed",
      "--note",
      "CRLF handled; tests added",
    ]);

    // 4. What GitHub shows on #12 afterwards.
    const issue = sim.issue(repo, 12);
    const github = [
      `assignees: ${issue.assignees.length ? issue.assignees.join(", ") : "(none)"}`,
      `labels: ${issue.labels.length ? issue.labels.join(", ") : "(none)"}`,
      "comments:",
      ...issue.comments.map((c) => `  @${c.author}: ${firstLine(c.body)}`),
    ].join("\n");
    writeTranscript(github, onRedis ? "Redis" : "the in-memory store");
  } finally {
    background?.kill("SIGKILL");
    await stack.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

function shellWord(arg: string): string {
  return /^[\w@%+=:,./#-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function firstLine(body: string): string {
  const marker = /<!-- claim-hold:v1 (\{.*\}) -->/.exec(body);
  const visible =
    body
      .replace(/<!--[\s\S]*?-->/g, "")
      .trim()
      .split("\n")[0] ?? "";
  if (!marker) return visible;
  const { generation, state } = JSON.parse(marker[1]!) as { generation: number; state: string };
  return `${visible}  [marker: generation ${generation}, ${state}]`;
}

function writeTranscript(github: string, storeName: string) {
  const lines = [
    "# Transcript: a two-session takeover through the `claim-hold` CLI",
    "",
    "Generated by `npx tsx scripts/cli-transcript.ts` against the real App (in-process, on",
    `${storeName}) and the local GitHub simulator (\`tools/github-sim\`). Every step below is a real`,
    "process, `node bin/claim-hold.js …` (shown as `claim-hold …`) or `git …`, run in one of two",
    "worktrees of the same repository. Both sessions use the same GitHub account (`fleet-bot`), as",
    "agent fleets usually do: only the session id tells them apart. `.github/claim-hold.yml` sets",
    "`author: { ttl: 30s, reclaimAfter: 120s, heartbeat: 5s }`. Where the story says time passes,",
    "the App's clock is moved; the CLI's own wait for the takeover grace beat is real.",
    "",
    "Exit codes: 0 ok, 3 held by another, 4 superseded or gone.",
    "",
  ];
  steps.forEach((s, index) => {
    for (const n of narration.filter((n) => n.before === index)) lines.push(n.text, "");
    const who = s.who === "a" ? "session-a" : "session-b";
    lines.push("```console", `${who}$ ${s.command}`, s.text.trimEnd(), `[exit ${s.code}]`, "```");
    if (s.note) lines.push(`_${s.note}_`);
    lines.push("");
  });
  lines.push("What GitHub shows on octo/widgets#12 afterwards:", "", "```text", github, "```", "");
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, lines.join("\n"));
  process.stdout.write(`wrote ${output}\n`);
}

await main();
