// The App process with two Gitea instances from the numbered variables (GITEA_URL, GITEA_URL_2): start-up refuses a colliding configuration by name, and the CLI names the instance with CLAIM_HOLD_FORGE=gitea:<host>.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { giteaInstanceName } from "../../src/domain/forge.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { freePort, testAdminToken, testTokenSecret } from "../support/app-harness.js";
import { agentToken, botToken, type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const repo = "octo/widgets";
const secretOne = "gitea-process-secret-one-0001";
const secretTwo = "gitea-process-secret-two-0002";
const bin = resolve(import.meta.dirname, "../../bin/claim-hold.js");

function runToEnd(
  command: string,
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv },
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
  // A process that should have stopped but serves instead is ended, not left behind.
  const stop = setTimeout(() => child.kill("SIGKILL"), 20_000);
  return new Promise((done) =>
    child.on("close", (code) => {
      clearTimeout(stop);
      done({ code, stdout, stderr });
    }),
  );
}

describe("the App process with two Gitea instances", () => {
  const clock = { now: Date.now() };
  let one: GiteaSimFixture;
  let two: GiteaSimFixture;
  let app: ChildProcess;
  let output = "";
  let url: string;
  let issueTwo: SimIssue;
  let cliHome: string;
  const instanceEnv = () => ({
    PATH: process.env.PATH,
    NODE_ENV: "test",
    HOST: "127.0.0.1",
    LOG_LEVEL: "info" as const,
    GITEA_URL: one.sim.url,
    GITEA_TOKEN: botToken,
    GITEA_WEBHOOK_SECRET: secretOne,
    GITEA_WRITE_SPACING_MS: "0",
    GITEA_URL_2: two.sim.url,
    GITEA_TOKEN_2: botToken,
    GITEA_WEBHOOK_SECRET_2: secretTwo,
    GITEA_WRITE_SPACING_MS_2: "0",
    CLAIM_HOLD_ADMIN_TOKEN: testAdminToken,
    CLAIM_HOLD_TOKEN_SECRET: testTokenSecret,
  });

  beforeAll(async () => {
    one = await startGiteaSimFixture(clock);
    two = await startGiteaSimFixture(clock);
    one.sim.state.addIssue(one.repo, { title: "Task on one", author: "maintainer" });
    issueTwo = two.sim.state.addIssue(two.repo, { title: "Task on two", author: "maintainer" });
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    app = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      env: { ...instanceEnv(), PORT: String(port) },
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
    cliHome = mkdtempSync(join(tmpdir(), "claim-hold-gitea-two-"));
  }, 60_000);

  afterAll(async () => {
    if (app && app.exitCode === null) {
      app.kill("SIGTERM");
      await new Promise((ended) => app.once("exit", ended));
    }
    await one?.sim.close();
    await two?.sim.close();
    if (cliHome) rmSync(cliHome, { recursive: true, force: true });
  });

  it("refuses to start when the second instance has the first's webhook secret, naming the variable, not the secret", {
    timeout: 30_000,
  }, async () => {
    const refused = await runToEnd(process.execPath, ["--import", "tsx", "src/main.ts"], {
      env: { ...instanceEnv(), PORT: String(await freePort()), GITEA_WEBHOOK_SECRET_2: secretOne },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      "claim-hold: invalid environment variable GITEA_WEBHOOK_SECRET_2: the webhook secret of GITEA_URL too (a delivery's signature names its instance)",
    );
    expect(refused.stdout + refused.stderr).not.toContain(secretOne);
  });

  it("serves both instances alone, and its janitor sweeps both records", async () => {
    expect(output).toContain("serving the Gitea instances alone");
    const sweep = await fetch(`${url}/api/v1/admin/janitor/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ dryRun: true }),
    });
    expect(sweep.status).toBe(200);
    expect(await sweep.json()).toMatchObject({ installations: 2, githubRequests: 0 });
  });

  it("the CLI with a bare CLAIM_HOLD_FORGE=gitea is refused with the choices; with gitea:<host> it claims on that instance alone", async () => {
    const git = await runToEnd("git", ["init", "-q", "."], { cwd: cliHome, env: { PATH: process.env.PATH } });
    expect(git.code).toBe(0);
    const cli = (forge: string) =>
      runToEnd(process.execPath, [bin, "next", repo, "--json"], {
        cwd: cliHome,
        env: {
          PATH: process.env.PATH,
          HOME: cliHome,
          CLAIM_HOLD_URL: url,
          CLAIM_HOLD_FORGE: forge,
          GH_TOKEN: agentToken,
          CLAIM_HOLD_SESSION_ID: "cli-2",
          CLAIM_HOLD_RUNTIME: "claude-code",
          CLAIM_HOLD_HOST: "build-2",
        },
      });
    const marks = { one: one.sim.requests.length, two: two.sim.requests.length };
    const bare = await cli("gitea");
    expect(bare.code).not.toBe(0);
    expect(bare.stdout + bare.stderr).toContain(`gitea:${giteaInstanceName(two.sim.url)}`);
    expect(one.sim.requests.length).toBe(marks.one);
    expect(two.sim.requests.length).toBe(marks.two);

    const named = await cli(`gitea:${giteaInstanceName(two.sim.url)}`);
    expect(named, `${named.stdout}${named.stderr}`).toMatchObject({ code: 0 });
    expect(JSON.parse(named.stdout)).toMatchObject({ ok: true });
    expect(issueTwo.assignees).toEqual(["fleet-bot"]);
    expect(one.sim.routesSince(marks.one)).toEqual([]);
  });

  it("takes each instance's webhook by its own secret: instance 2's /reclaim acts there, and instance 1's secret under ?instance=2 is refused", async () => {
    const comment = two.sim.state.addComment(issueTwo, "maintainer", "/reclaim");
    const payload = two.sim.payloads.issueComment(two.repo, issueTwo, comment.id, "maintainer");
    const mark = one.sim.requests.length;
    const crossed = await two.sim.deliver({
      url: `${url}/api/gitea/webhooks?instance=2`,
      secret: secretOne,
      event: "issue_comment",
      payload,
    });
    expect(crossed.status).toBe(401);
    const answer = await two.sim.deliver({
      url: `${url}/api/gitea/webhooks`,
      secret: secretTwo,
      event: "issue_comment",
      payload,
    });
    expect(answer).toMatchObject({ status: 200, body: { status: "processed" } });
    expect(issueTwo.assignees).toEqual(["maintainer"]);
    expect(one.sim.routesSince(mark)).toEqual([]);
  });

  it("ends with 0 on SIGTERM", async () => {
    const ended = new Promise<number | null>((done) => app.once("exit", (code) => done(code)));
    app.kill("SIGTERM");
    expect(await ended).toBe(0);
  });
});
