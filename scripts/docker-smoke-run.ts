// The image under test as the App of a local stack (GitHub simulator + private Redis): health, readiness,
// one claim/heartbeat/release, and a clean exit on SIGTERM. Run by scripts/docker-smoke.sh:
//   npx tsx scripts/docker-smoke-run.ts <image>
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createClaimHoldClient } from "../src/agent/client/index.js";
import { freePort } from "../tools/local-stack/free-port.js";
import {
  generateCredentials,
  type StackWiring,
  startLocalStack,
} from "../tools/local-stack/start-local-stack.js";

const run = promisify(execFile);
const image = process.argv[2] ?? "";
if (!image) {
  console.error("usage: tsx scripts/docker-smoke-run.ts <image>");
  process.exit(2);
}

const repo = "octo/widgets";
const agentToken = "ghp_smokebot000000000000000000000000001";
const tokenSecret = "docker-smoke-token-secret-0123456789abcdef";
const container = `claim-hold-smoke-${process.pid}`;
/** The Node major the image ships (the baseline; 22 is only the floor). */
const imageNodeMajor = 24;
/** docker stop's default grace, and the App's own cut-off for open connections. */
const sigtermBudgetMs = 10_000;

const docker = (...args: string[]) => run("docker", args, { maxBuffer: 16 * 1024 * 1024 });

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`check failed: ${what}`);
  console.log(`docker smoke: ok: ${what}`);
}

async function waitFor(url: string, status: number, timeoutMs: number): Promise<number> {
  const started = Date.now();
  let last = "no answer";
  while (Date.now() - started < timeoutMs) {
    const answer = await fetch(url).then(
      (r) => r.status,
      () => undefined,
    );
    if (answer === status) return Date.now() - started;
    last = answer === undefined ? "no answer" : `status ${answer}`;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms (${last})`);
}

/** `docker run` of the image on the host network, configured through its environment only. */
async function startContainer(wiring: StackWiring) {
  if (!wiring.redis) throw new Error("the smoke stack runs a private Redis");
  const port = await freePort();
  const github = new URL(wiring.githubBaseUrl);
  const env: Record<string, string> = {
    APP_ID: String(wiring.credentials.appId),
    PRIVATE_KEY: wiring.credentials.privateKey,
    WEBHOOK_SECRET: wiring.credentials.webhookSecret,
    GHE_HOST: github.host,
    GHE_PROTOCOL: github.protocol.replace(":", ""),
    HOST: "127.0.0.1",
    PORT: String(port),
    REDIS_URL: wiring.redis.url,
    CLAIM_HOLD_KEY_PREFIX: wiring.redis.keyPrefix,
    CLAIM_HOLD_TOKEN_SECRET: tokenSecret,
    CLAIM_HOLD_DISABLE_JOBS: "janitor",
    LOG_LEVEL: "info",
  };
  // Values travel in the child's environment (`-e NAME`), never on the command line.
  await run(
    "docker",
    [
      "run",
      "-d",
      "--name",
      container,
      "--network",
      "host",
      ...Object.keys(env).flatMap((k) => ["-e", k]),
      image,
    ],
    { env: { ...process.env, ...env } },
  );
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await docker("rm", "-f", container).catch(() => undefined);
    },
  };
}

async function main(): Promise<void> {
  const { stdout: nodeVersion } = await docker("run", "--rm", "--entrypoint", "node", image, "--version");
  check(
    nodeVersion.trim().startsWith(`v${imageNodeMajor}.`),
    `the image runs Node ${imageNodeMajor} (${nodeVersion.trim()})`,
  );
  const stack = await startLocalStack({
    redis: { kind: "private", keyPrefix: "smoke:" },
    credentials: generateCredentials(),
    startApp: startContainer,
    apps: 0,
  });
  try {
    stack.sim.seed({
      users: [{ login: "smoke-bot", tokens: [agentToken] }],
      repos: [
        {
          fullName: repo,
          id: 9001,
          collaborators: { "smoke-bot": "write" },
          issues: [{ number: 1, title: "Smoke test issue" }],
        },
      ],
      installations: [{ id: 77, account: "octo", repos: [repo] }],
    });
    const startedAt = Date.now();
    const app = await stack.addApp();
    try {
      const healthyAfter = await waitFor(`${app.url}/healthz`, 200, 60_000);
      check(
        true,
        `/healthz answers 200 (${Math.round((Date.now() - startedAt) / 100) / 10} s after docker run)`,
      );
      await waitFor(`${app.url}/readyz`, 200, 30_000);
      check(
        true,
        `/readyz answers 200 (store reachable, credentials loaded; healthy after ${healthyAfter} ms)`,
      );

      const client = createClaimHoldClient({ baseUrl: app.url, githubToken: agentToken, retries: 0 });
      const claimed = await client.claim({
        repo,
        issue: 1,
        actor: { sessionId: "smoke", runtime: "docker-smoke" },
      });
      check(claimed.created && claimed.lease.generation === 1, "claim: 201, generation 1");
      await stack.sim.flush();
      const held = stack.sim.issue(repo, 1);
      check(
        held.assignees.includes("smoke-bot") && held.labels.includes("agent:claimed"),
        "the simulator's issue is assigned and labelled agent:claimed",
      );
      const beat = await client.heartbeat(claimed.lease, { phase: "smoke" });
      check(beat.generation === 1, "heartbeat: 200 on generation 1");
      await client.release(claimed.lease, { outcome: "completed" });
      await stack.sim.flush();
      const released = stack.sim.issue(repo, 1);
      check(
        !released.labels.includes("agent:claimed"),
        "release: 200, and the agent:claimed label is off the issue",
      );

      const signalledAt = Date.now();
      await docker("kill", "--signal", "TERM", container);
      const { stdout } = await run("timeout", [
        String(sigtermBudgetMs / 1000 + 5),
        "docker",
        "wait",
        container,
      ]);
      const exitMs = Date.now() - signalledAt;
      check(stdout.trim() === "0", `SIGTERM: the container exits 0 (in ${exitMs} ms)`);
      check(
        exitMs < sigtermBudgetMs,
        `SIGTERM: it exits before docker stop's ${sigtermBudgetMs / 1000} s grace`,
      );
    } catch (error) {
      const logs = await docker("logs", "--tail", "40", container).catch(() => ({ stdout: "", stderr: "" }));
      console.error(`docker smoke: the container's last log lines:\n${logs.stdout}${logs.stderr}`);
      throw error;
    }
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`docker smoke: FAILED: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
