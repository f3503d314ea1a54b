// The App process on a Gitea instance alone: `src/main.ts` started with only the Gitea variables (no GitHub App credentials) serves the API, the CLI and the Gitea webhooks against the Gitea simulator, and asks GitHub nothing.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClaimHoldClient } from "../../src/agent/client/index.js";
import { leaseIdOf } from "../../src/domain/claim.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { freePort, testAdminToken, testTokenSecret } from "../support/app-harness.js";
import {
  createTestRedis,
  deleteKeysWithPrefix,
  probeRedis,
  redisUrl,
  uniqueKeyPrefix,
} from "../support/redis.js";
import {
  agentToken,
  botLogin,
  botToken,
  type GiteaSimFixture,
  giteaInstallation,
  startGiteaSimFixture,
} from "./sim-fixture.js";

const redisProbe = await probeRedis();
const repo = "octo/widgets";
const webhookSecret = "gitea-only-webhook-secret-0001";
const bin = resolve(import.meta.dirname, "../../bin/claim-hold.js");

/** A stand-in for every GitHub host (`GHE_HOST`): whatever asks GitHub anything is recorded here. */
async function startGitHubTrap(): Promise<{ server: Server; host: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(500).end();
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", () => ready()));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { server, host: `127.0.0.1:${port}`, requests };
}

/** Runs a command to its end, its output collected. */
function runToEnd(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((done) => child.on("close", (code) => done({ code, stdout, stderr })));
}

describe.each([
  { name: "the embedded store", redis: false },
  ...(redisProbe.available ? [{ name: "Redis", redis: true }] : []),
])("the App process with only the Gitea variables, on $name", ({ redis }) => {
  const clock = { now: Date.now() };
  const keyPrefix = uniqueKeyPrefix("gitea-only");
  let gitea: GiteaSimFixture;
  let github: Awaited<ReturnType<typeof startGitHubTrap>>;
  let app: ChildProcess;
  let output = "";
  let url: string;
  let first: SimIssue;
  let second: SimIssue;
  let cliHome: string;

  const labelsOf = (subject: SimIssue) =>
    subject.labelIds.map((id) => gitea.repo.labels.find((label) => label.id === id)?.name);

  beforeAll(async () => {
    gitea = await startGiteaSimFixture(clock);
    first = gitea.sim.state.addIssue(gitea.repo, { title: "Task 1", author: "maintainer" });
    second = gitea.sim.state.addIssue(gitea.repo, { title: "Task 2", author: "maintainer" });
    github = await startGitHubTrap();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    app = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: "test",
        HOST: "127.0.0.1",
        PORT: String(port),
        LOG_LEVEL: "info",
        GITEA_URL: gitea.sim.url,
        GITEA_TOKEN: botToken,
        GITEA_WEBHOOK_SECRET: webhookSecret,
        // Hooks made by hand, all signed with the one secret (docs/security.md).
        GITEA_MANAGE_WEBHOOKS: "0",
        GITEA_WRITE_SPACING_MS: "0",
        CLAIM_HOLD_ADMIN_TOKEN: testAdminToken,
        CLAIM_HOLD_TOKEN_SECRET: testTokenSecret,
        ...(redis ? { REDIS_URL: redisUrl, CLAIM_HOLD_KEY_PREFIX: keyPrefix } : {}),
        // Every GitHub client would ask here; the trap records it.
        GHE_HOST: github.host,
        GHE_PROTOCOL: "http",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    app.stdout?.on("data", (chunk) => {
      output += chunk;
    });
    app.stderr?.on("data", (chunk) => {
      output += chunk;
    });
    for (let i = 0; i < 300; i++) {
      const up = await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (app.exitCode !== null) throw new Error(`the App process ended:\n${output}`);
      await new Promise((wait) => setTimeout(wait, 50));
    }
    cliHome = mkdtempSync(join(tmpdir(), "claim-hold-gitea-only-"));
  }, 60_000);

  afterAll(async () => {
    if (app && app.exitCode === null) {
      app.kill("SIGTERM");
      await new Promise((ended) => app.once("exit", ended));
    }
    await gitea?.sim.close();
    await new Promise((closed) => github?.server.close(closed));
    if (cliHome) rmSync(cliHome, { recursive: true, force: true });
    if (redis) {
      const client = await createTestRedis();
      await deleteKeysWithPrefix(client, keyPrefix);
      client.disconnect();
    }
  });

  it("is ready, serves metrics, and does not offer the GitHub App setup page", async () => {
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ checks: { store: "ok", credentials: "ok" } });
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
    expect(output).toContain("serving the Gitea instance alone");
    expect(output).not.toContain("No GitHub App credentials");
  });

  it("runs the janitor over the Gitea record before any claim (no GitHub installation to list)", async () => {
    const sweep = await fetch(`${url}/api/v1/admin/janitor/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ dryRun: true }),
    });
    expect(sweep.status).toBe(200);
    expect(await sweep.json()).toMatchObject({ installations: 1, githubRequests: 0 });
  });

  it("claims a Gitea issue over HTTP with a Gitea token and no forge header, then heartbeats", async () => {
    const agent = createClaimHoldClient({ baseUrl: url, githubToken: agentToken, retries: 0 });
    const claimed = await agent.claim({
      repo,
      issue: first.number,
      actor: { runtime: "claude-code", sessionId: "g1", host: "build-1" },
    });
    expect(claimed).toMatchObject({ created: true, lease: { generation: 1 } });
    // The lease names the Gitea instance's installation record.
    expect(claimed.lease.id).toBe(
      leaseIdOf({ installationId: giteaInstallation, repoId: gitea.repo.id, issue: first.number }, 1),
    );
    expect(first.assignees).toEqual(["fleet-bot"]);
    expect(labelsOf(first)).toEqual(["agent:claimed"]);
    expect(first.comments.filter((comment) => comment.author === botLogin)).toHaveLength(1);
    expect(await agent.heartbeat(claimed.lease)).toMatchObject({ generation: 1, state: "active" });
  });

  it("refuses a GitHub-format token (a `gh auth token` fallback) with 401, without sending it to Gitea", async () => {
    const mark = gitea.sim.requests.length;
    const answer = await fetch(`${url}/api/v1/claims`, {
      method: "POST",
      headers: {
        authorization: "Bearer ghp_notagiteatoken0000000000000000000000",
        "content-type": "application/json",
      },
      body: JSON.stringify({ repo, issue: second.number, actor: { runtime: "codex", sessionId: "x" } }),
    });
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({
      error: "unauthorized",
      message: expect.stringContaining("GitHub token"),
    });
    expect(gitea.sim.requests.length).toBe(mark);
  });

  it("claims the next issue through the CLI with CLAIM_HOLD_FORGE unset and the Gitea token in GH_TOKEN", async () => {
    // A clone of the Gitea repository: the CLI keeps its lease under .git.
    const git = await runToEnd("git", ["init", "-q", "."], { cwd: cliHome, env: { PATH: process.env.PATH } });
    expect(git.code).toBe(0);
    const result = await runToEnd(process.execPath, [bin, "next", repo, "--json"], {
      cwd: cliHome,
      env: {
        PATH: process.env.PATH,
        HOME: cliHome,
        CLAIM_HOLD_URL: url,
        GH_TOKEN: agentToken,
        CLAIM_HOLD_SESSION_ID: "cli-1",
        CLAIM_HOLD_RUNTIME: "claude-code",
        CLAIM_HOLD_HOST: "build-2",
      },
    });
    expect(result, `${result.stdout}${result.stderr}`).toMatchObject({ code: 0 });
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true });
    expect(second.assignees).toEqual(["fleet-bot"]);
    expect(labelsOf(second)).toEqual(["agent:claimed"]);
  });

  it("serves a signed Gitea webhook: a maintainer's /reclaim takes the issue back", async () => {
    const comment = gitea.sim.state.addComment(first, "maintainer", "/reclaim");
    const answer = await gitea.sim.deliver({
      url: `${url}/api/gitea/webhooks`,
      secret: webhookSecret,
      event: "issue_comment",
      payload: gitea.sim.payloads.issueComment(gitea.repo, first, comment.id, "maintainer"),
    });
    expect(answer).toMatchObject({ status: 200, body: { status: "processed" } });
    expect(first.assignees).toEqual(["maintainer"]);
    expect(labelsOf(first)).not.toContain("agent:claimed");
  });

  it("shows the claims on the dashboard and a Gitea claim's subject page", async () => {
    const login = await fetch(`${url}/login`, {
      method: "POST",
      body: new URLSearchParams({ token: testAdminToken }),
      redirect: "manual",
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const fleet = await fetch(`${url}/dashboard/fleet.json`, { headers: { cookie } });
    expect(fleet.status, await fleet.clone().text()).toBe(200);
    expect(JSON.stringify(await fleet.json())).toContain(`${repo}#${second.number}`);
    const page = await fetch(`${url}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("127.0.0.1");
    const subject = await fetch(`${url}/subjects/octo/widgets/${second.number}`, { headers: { cookie } });
    // The subject page finds the repository's record through the served forge's identity: Gitea's.
    expect(subject.status).toBe(200);
    expect(await subject.text()).toContain("fleet-bot");
  });

  it("does not serve GitHub's webhook route, and asked no GitHub host anything", async () => {
    expect((await fetch(`${url}/api/github/webhooks`)).status).toBe(404);
    const posted = await fetch(`${url}/api/github/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "ping" },
      body: "{}",
    });
    expect(posted.status).toBe(404);
    expect(await posted.text()).toContain("Gitea instance only");
    expect(github.requests).toEqual([]);
  });

  it("ends with 0 on SIGTERM", async () => {
    const ended = new Promise<number | null>((done) => app.once("exit", (code) => done(code)));
    app.kill("SIGTERM");
    expect(await ended).toBe(0);
  });
});
