// The GitHub Action's entry points (action/main.js, action/post.js) as the runner runs them — processes
// with INPUT_*/STATE_* variables and the runner's files — against the App on the GitHub simulator. They
// run from a copy of the Action as a tag carries it (action.yml and action/ with its committed CLI
// bundle, no node_modules, no dist/, no source), so nothing outside the bundle can stand in for it.
import { execFile, execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { createClaimHoldClient } from "../src/agent/client/index.js";
import { parseClaimMarker } from "../src/domain/claim-marker.js";
import { type LocalStack, startLocalStack } from "../tools/local-stack/start-local-stack.js";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "..");
const repo = "octo/widgets";
const repoId = 7301;
const installationId = 73;
const agentToken = "ghp_actionbot000000000000000000000000001";
const otherToken = "ghp_otherbot0000000000000000000000000002";
const maintainerToken = "ghp_maintainer00000000000000000000000003";
const key = (issue: number) => ({ installationId, repoId, issue });
/** Heartbeats every second, so the keepalive's work is visible within the test; reviewers beat every 30 s. */
const config =
  "taskClasses:\n  author:\n    ttl: 10s\n    reclaimAfter: 60s\n    heartbeat: 1s\n" +
  "  reviewer:\n    ttl: 2m\n    reclaimAfter: 4m\n    heartbeat: 30s\n";
const hasNext = execFileSync(process.execPath, [join(root, "action/dist/bin/claim-hold.js"), "--help"], {
  encoding: "utf8",
}).includes("\n  next ");

let stack: LocalStack;
let work: string;
/** The Action as the runner checks it out from a tag: action.yml and action/, nothing else. */
let actionCheckout: string;

beforeAll(async () => {
  stack = await startLocalStack();
  stack.sim.seed({
    users: [
      { login: "action-bot", tokens: [agentToken] },
      { login: "other-bot", tokens: [otherToken] },
      { login: "maintainer", tokens: [maintainerToken] },
    ],
    repos: [
      {
        fullName: repo,
        id: repoId,
        files: { ".github/claim-hold.yml": config },
        collaborators: { "action-bot": "write", "other-bot": "write", maintainer: "maintain" },
        issues: [1, 2, 3, 4, 5].map((number) => ({ number, title: `Work item ${number}` })),
      },
    ],
    installations: [{ id: installationId, account: "octo", repos: [repo] }],
  });
  work = mkdtempSync(join(tmpdir(), "claim-hold-action-"));
  actionCheckout = join(work, "action-checkout");
  cpSync(join(root, "action.yml"), join(actionCheckout, "action.yml"));
  cpSync(join(root, "action"), join(actionCheckout, "action"), { recursive: true });
});

afterAll(async () => {
  await stack?.stop();
  rmSync(work, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=Action Bot", "-c", "user.email=bot@example.com", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();

/** A job: a checked-out repository with an origin, and the runner's files. */
function newJob(name: string) {
  const dir = join(work, name);
  const origin = join(dir, "origin.git");
  const workspace = join(dir, "workspace");
  mkdirSync(workspace, { recursive: true });
  git(dir, "init", "--quiet", "--bare", origin);
  git(workspace, "init", "--quiet", "-b", "main");
  git(workspace, "remote", "add", "origin", origin);
  writeFileSync(join(workspace, "README.md"), "widgets\n");
  git(workspace, "add", ".");
  git(workspace, "commit", "--quiet", "-m", "initial");
  git(workspace, "push", "--quiet", "origin", "main");
  const files = {
    env: join(dir, "github_env"),
    output: join(dir, "github_output"),
    state: join(dir, "github_state"),
    path: join(dir, "github_path"),
  };
  for (const file of Object.values(files)) writeFileSync(file, "");
  return { dir, workspace, files };
}
type Job = ReturnType<typeof newJob>;

/** `name=value` lines and `name<<delimiter` blocks, as the runner reads them. */
function readRunnerFile(file: string): Record<string, string> {
  const lines = readFileSync(file, "utf8").split("\n");
  const values: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const block = /^([^=<]+)<<(.+)$/.exec(line);
    if (block) {
      const end = lines.indexOf(block[2] as string, i + 1);
      values[block[1] as string] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (line.includes("=")) {
      values[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
    }
  }
  return values;
}

interface Step {
  code: number;
  stdout: string;
}

/** One entry point as the runner starts it: inputs as INPUT_<NAME>, the post step's saved state as STATE_<name>. */
async function runStep(
  job: Job,
  entry: "main" | "post",
  inputs: Record<string, string>,
  state: Record<string, string> = {},
  checkout = actionCheckout,
  path = process.env.PATH ?? "",
  jobEnv: Record<string, string> = {},
): Promise<Step> {
  const env: Record<string, string> = {
    ...jobEnv,
    PATH: path,
    HOME: job.dir,
    GITHUB_ENV: job.files.env,
    GITHUB_OUTPUT: job.files.output,
    GITHUB_STATE: job.files.state,
    GITHUB_PATH: job.files.path,
    GITHUB_WORKSPACE: job.workspace,
    GITHUB_REPOSITORY: repo,
    GITHUB_RUN_ID: "8100",
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_JOB: job.dir.split("/").pop() as string,
    GITHUB_SERVER_URL: "https://github.com",
    RUNNER_TEMP: job.dir,
    RUNNER_NAME: "runner-7",
  };
  for (const [name, value] of Object.entries({
    url: stack.app.url,
    "github-token": agentToken,
    ...inputs,
  })) {
    env[`INPUT_${name.toUpperCase()}`] = value;
  }
  for (const [name, value] of Object.entries(state)) env[`STATE_${name}`] = value;
  return run(process.execPath, [join(checkout, "action", `${entry}.js`)], { cwd: job.workspace, env }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitUntil(condition: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out");
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** The state of the newest claim marker on the issue. */
async function markerState(issue: number): Promise<string | undefined> {
  await stack.sim.flush();
  const markers = stack.sim.issue(repo, issue).comments.flatMap((comment) => {
    const parsed = parseClaimMarker(comment.body);
    return parsed.kind === "marker" ? [parsed.marker] : [];
  });
  return markers.at(-1)?.state;
}

describe("action.yml", () => {
  const metadata = parseYaml(readFileSync(join(root, "action.yml"), "utf8")) as {
    inputs: Record<string, { required?: boolean; default?: string }>;
    runs: { using: string; main: string; post: string; "post-if": string };
  };

  it("runs the two entry points on node24, the post step whatever the job's outcome", () => {
    expect(metadata.runs).toEqual({
      using: "node24",
      main: "action/main.js",
      post: "action/post.js",
      "post-if": "always()",
    });
    // The post step learns the job's status from this input, which the runner evaluates again for it.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
    expect(metadata.inputs["job-status"]?.default).toBe("${{ job.status }}");
  });

  it("declares every input the entry points read, and no other", () => {
    const read = new Set(
      ["main.js", "post.js", "runner.js"].flatMap((file) =>
        [
          ...readFileSync(join(root, "action", file), "utf8").matchAll(
            /\b(?:input|booleanInput|listInput)\("([a-z-]+)"/g,
          ),
        ].map((match) => match[1] as string),
      ),
    );
    expect([...read].sort()).toEqual(Object.keys(metadata.inputs).sort());
  });
});

describe("the claim-hold Action", () => {
  it("claims, exports the lease, heartbeats through the job, attests the pushed head and releases completed", {
    timeout: 90_000,
  }, async () => {
    const job = newJob("success");
    const main = await runStep(job, "main", { issue: "1" });
    expect(main.code).toBe(0);

    const outputs = readRunnerFile(job.files.output);
    const env = readRunnerFile(job.files.env);
    expect(outputs).toMatchObject({
      claimed: "true",
      created: "true",
      subject: `${repo}#1`,
      generation: "1",
    });
    expect(outputs.branch).toMatch(/^agent\/gha-8100-1-success\/1/);
    const token = env.CLAIM_HOLD_LEASE_TOKEN as string;
    expect(token).toMatch(/^clh_/);
    expect(env).toMatchObject({
      CLAIM_HOLD_URL: stack.app.url,
      CLAIM_HOLD_SUBJECT: `${repo}#1`,
      CLAIM_HOLD_LEASE_ID: outputs["lease-id"],
      CLAIM_HOLD_SESSION_ID: "gha-8100-1-success",
      CLAIM_HOLD_BRANCH: outputs.branch,
    });
    // The token is masked before anything could print it, and never is an output.
    const lines = main.stdout.split("\n");
    expect(lines.filter((line) => line.includes(token))).toEqual([`::add-mask::${token}`]);
    expect(lines).toContain(`::add-mask::${agentToken}`);
    expect(Object.values(outputs)).not.toContain(token);

    await stack.sim.flush();
    const issue = stack.sim.issue(repo, 1);
    expect(issue.assignees).toEqual(["action-bot"]);
    expect(issue.labels).toContain("agent:claimed");

    // A later step of the job: the keepalive heartbeats by itself, and the exported lease works.
    const state = readRunnerFile(job.files.state);
    const pid = Number(state["keepalive-pid"]);
    expect(alive(pid)).toBe(true);
    const claimedAt = (await stack.stores.claims.get(key(1)))?.lastHeartbeatAt as number;
    await waitUntil(async () => ((await stack.stores.claims.get(key(1)))?.lastHeartbeatAt ?? 0) > claimedAt);
    const lease = { id: env.CLAIM_HOLD_LEASE_ID as string, token };
    await expect(createClaimHoldClient({ baseUrl: stack.app.url }).verify(lease)).resolves.toMatchObject({
      holder: true,
      generation: 1,
    });
    // A later step runs `claim-hold` by name: GITHUB_PATH carries the Action's shim, GITHUB_ENV the session.
    const binDirs = readFileSync(job.files.path, "utf8").trim().split("\n");
    expect(binDirs).toEqual([join(job.dir, "claim-hold-bin")]);
    const verified = await run("claim-hold", ["verify", "--json"], {
      cwd: job.workspace,
      env: { PATH: [...binDirs, "/usr/bin", "/bin"].join(":"), HOME: job.dir, ...env },
    });
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, holder: true, generation: 1 });
    git(job.workspace, "switch", "--quiet", "-c", outputs.branch as string);
    writeFileSync(join(job.workspace, "fix.txt"), "fixed\n");
    git(job.workspace, "add", ".");
    git(job.workspace, "commit", "--quiet", "-m", "fix");
    git(job.workspace, "push", "--quiet", "origin", outputs.branch as string);
    const sha = git(job.workspace, "rev-parse", "HEAD");

    const post = await runStep(job, "post", { "job-status": "success" }, state);
    expect(post.code).toBe(0);
    expect(post.stdout).toContain(`attested ${sha}`);
    expect(alive(pid)).toBe(false);
    const evidence = await stack.fences.evidence(key(1), sha, Date.now());
    expect(evidence.attestedGenerations).toEqual([1]);
    expect(await markerState(1)).toBe("completed");
    const released = stack.sim.issue(repo, 1);
    expect(released.labels).not.toContain("agent:claimed");
    expect(released.comments.some((c) => c.body.includes("GitHub Actions job success ended success"))).toBe(
      true,
    );

    // A second post (a re-run of the step) finds nothing to release and changes nothing.
    const comments = released.comments.length;
    const again = await runStep(job, "post", { "job-status": "success" }, state);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("already released");
    await stack.sim.flush();
    expect(stack.sim.issue(repo, 1).comments).toHaveLength(comments);
  });

  it("releases with handoff when the job failed, and attests nothing when nothing was pushed", {
    timeout: 60_000,
  }, async () => {
    const job = newJob("failure");
    // The job exports someone else's GH_TOKEN (for gh): the Action's token input is still who claims.
    const jobEnv = { GH_TOKEN: otherToken };
    expect(
      (await runStep(job, "main", { issue: `${repo}#2` }, {}, actionCheckout, undefined, jobEnv)).code,
    ).toBe(0);
    await stack.sim.flush();
    expect(stack.sim.issue(repo, 2).assignees).toEqual(["action-bot"]);
    const state = readRunnerFile(job.files.state);
    const post = await runStep(job, "post", { "job-status": "failure" }, state);
    expect(post.code).toBe(0);
    expect(post.stdout).toContain("nothing pushed");
    expect(post.stdout).toContain("released octo/widgets#2 (handoff; the job ended failure)");
    expect(await markerState(2)).toBe("released");
    expect(stack.sim.issue(repo, 2).assignees).toEqual([]);
  });

  it("fails the step on a held issue, or with if-held: skip reports claimed=false and the post step does nothing", async () => {
    const other = createClaimHoldClient({ baseUrl: stack.app.url, githubToken: otherToken, retries: 0 });
    await other.claim({ repo, issue: 3, actor: { sessionId: "someone-else" } });

    const failing = newJob("held");
    const refused = await runStep(failing, "main", { issue: "3", keepalive: "false" });
    expect(refused.code).toBe(3);
    expect(refused.stdout).toMatch(/^::error::claim-hold claim: /m);
    expect(readRunnerFile(failing.files.output)).toEqual({ claimed: "false", error: "held" });

    const skipping = newJob("held-skip");
    const skipped = await runStep(skipping, "main", { issue: "3", "if-held": "skip" });
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toMatch(/^::notice::claim-hold: nothing claimed/m);
    expect(readRunnerFile(skipping.files.state)).toEqual({});
    const post = await runStep(skipping, "post", { "job-status": "success" }, {});
    expect(post).toMatchObject({ code: 0 });
    expect(post.stdout).toContain("nothing to release");
    await stack.sim.flush();
    expect(stack.sim.issue(repo, 3).assignees).toEqual(["other-bot"]);
  });

  it("cancels the workflow run as soon as the lease is lost, long before the keepalive's next heartbeat", {
    timeout: 60_000,
  }, async () => {
    // GitHub's Actions API, faked at the HTTP level: the keepalive's cancel request lands here.
    const cancels: { method: string; url: string; authorization: string }[] = [];
    const actionsApi = createServer((request, response) => {
      cancels.push({
        method: request.method ?? "",
        url: request.url ?? "",
        authorization: request.headers.authorization ?? "",
      });
      request.resume();
      response.writeHead(202, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((listening) => actionsApi.listen(0, "127.0.0.1", listening));
    const apiUrl = `http://127.0.0.1:${(actionsApi.address() as AddressInfo).port}`;
    try {
      const job = newJob("lost");
      // The reviewer class heartbeats every 30 s: a loss learned within seconds came from the live events.
      const main = await runStep(
        job,
        "main",
        { issue: "5", "task-class": "reviewer" },
        {},
        actionCheckout,
        undefined,
        { GITHUB_API_URL: apiUrl },
      );
      expect(main.code).toBe(0);
      const state = readRunnerFile(job.files.state);
      const pid = Number(state["keepalive-pid"]);
      expect(alive(pid)).toBe(true);
      // Let the keepalive open its event stream, then a person takes the claim off: revoked.
      await new Promise((done) => setTimeout(done, 2_000));
      expect(cancels).toEqual([]);
      const lostAt = Date.now();
      stack.sim.unassign({ repo, issue: 5, login: "maintainer", labels: ["agent:claimed"] });
      await stack.sim.flush();
      await waitUntil(() => cancels.length > 0, 10_000);
      const tookMs = Date.now() - lostAt;
      console.log(`Action cancel-on-loss: the run was cancelled ${tookMs} ms after the claim was lost`);
      expect(tookMs).toBeLessThan(30_000);
      expect(cancels).toEqual([
        {
          method: "POST",
          url: `/repos/${repo}/actions/runs/8100/cancel`,
          authorization: `Bearer ${agentToken}`,
        },
      ]);
      await waitUntil(() => !alive(pid));
      const log = readFileSync(state["keepalive-log"] as string, "utf8");
      expect(log).toContain("cancelling workflow run 8100: the lease was lost");
      expect(log).not.toContain(agentToken);
      // The post step reports the loss and fails: the job's work must not be used.
      const post = await runStep(job, "post", { "job-status": "cancelled" }, state);
      expect(post.code).toBe(1);
      expect(post.stdout).toContain("the lease was lost during the job");
    } finally {
      await new Promise((closed) => actionsApi.close(closed));
    }
  });

  it("refuses both issue and next, and neither", async () => {
    const job = newJob("inputs");
    const both = await runStep(job, "main", { issue: "4", next: "true" });
    const neither = await runStep(job, "main", {});
    for (const step of [both, neither]) {
      expect(step.code).toBe(1);
      expect(step.stdout).toContain("::error::claim-hold: set exactly one of the inputs issue and next");
    }
  });

  it("fails with a clear message when its checkout carries no bundle, and fetches nothing instead", async () => {
    const bare = join(work, "checkout-without-bundle");
    cpSync(actionCheckout, bare, { recursive: true });
    rmSync(join(bare, "action", "dist"), { recursive: true });
    // An npx and an npm on PATH that record being run: a fallback to a registry would show here.
    const fakeBin = join(work, "fake-bin");
    const calls = join(work, "registry-calls");
    mkdirSync(fakeBin, { recursive: true });
    for (const name of ["npx", "npm"]) {
      writeFileSync(join(fakeBin, name), `#!/bin/sh\necho "${name} $*" >> '${calls}'\n`);
      chmodSync(join(fakeBin, name), 0o755);
    }
    const job = newJob("no-bundle");
    const step = await runStep(job, "main", { issue: "4" }, {}, bare, `${fakeBin}:${process.env.PATH}`);
    expect(step.code).toBe(1);
    expect(step.stdout).toMatch(
      /^::error::claim-hold: the Action's CLI bundle \S+\/action\/dist\/bin\/claim-hold\.js is missing/m,
    );
    expect(existsSync(calls)).toBe(false);
    expect(readRunnerFile(job.files.output)).toEqual({});
    await stack.sim.flush();
    expect(stack.sim.issue(repo, 4).assignees).toEqual([]);
  });

  it.skipIf(!hasNext)(
    "with next: true claims the best free issue through `claim-hold next`",
    { timeout: 60_000 },
    async () => {
      // Earlier tests released or hold some issues: the App's own ranking says which one is best now.
      const queue = await fetch(`${stack.app.url}/api/v1/repos/${repo}/queue`, {
        headers: { authorization: `Bearer ${agentToken}` },
      });
      expect(queue.status).toBe(200);
      const best = ((await queue.json()) as { queue: { issue: number }[] }).queue[0]?.issue;
      expect(best).toBeDefined();
      const job = newJob("next");
      const main = await runStep(job, "main", { next: "true", keepalive: "false" });
      expect(main.code).toBe(0);
      const outputs = readRunnerFile(job.files.output);
      expect(outputs.claimed).toBe("true");
      expect(outputs.subject).toBe(`${repo}#${best}`);
      expect(stack.sim.issue(repo, best as number).assignees).toEqual(["action-bot"]);
      const post = await runStep(job, "post", { "job-status": "success" }, readRunnerFile(job.files.state));
      expect(post.code).toBe(0);
    },
  );
});
