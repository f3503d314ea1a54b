// Heartbeat req/s of the App beside a bare node:http POST server, each in its own process, loaded by autocannon's CLI in a third.
//
// `npx tsx bench/heartbeat-processes.ts [connections] [seconds]` (default 50 connections, 10 s): the App
// (`src/main.ts` on a private Redis, janitor off), the bare server and every autocannon run are child
// processes; this process holds the GitHub simulator (idle during heartbeats) and prints the figures.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { createClaimHoldClient } from "../src/agent/client/index.js";
import { freePort } from "../tools/local-stack/free-port.js";
import { appProcess } from "../tools/local-stack/start-app-process.js";
import { startLocalStack } from "../tools/local-stack/start-local-stack.js";

const run = promisify(execFile);
const repo = "bench/queue";
const fleet = { login: "fleet-bot", token: `ghp_bench${randomBytes(12).toString("hex")}` };

/** The baseline: a node:http server that reads a POST body and answers `{}`. */
const bareServer = `
const http = require("node:http");
http.createServer((req, res) => {
  req.resume();
  req.on("end", () => { res.writeHead(200, { "content-type": "application/json" }); res.end("{}"); });
}).listen(Number(process.argv[1]), "127.0.0.1", () => process.stdout.write("up\\n"));
`;

async function startBare(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["-e", bareServer, String(port)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve) => child.stdout?.once("data", () => resolve()));
  return { url: `http://127.0.0.1:${port}/`, child };
}

/** One autocannon run in its own process; its JSON summary. */
async function autocannon(
  url: string,
  options: { connections: number; seconds: number; headers?: Record<string, string> },
): Promise<{ rps: number; p50: number; p99: number; non2xx: number; errors: number }> {
  const args = [
    "-j",
    "-c",
    String(options.connections),
    "-d",
    String(options.seconds),
    "-m",
    "POST",
    "-b",
    "{}",
  ];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push("-H", `${name}=${value}`);
  const { stdout } = await run("node_modules/.bin/autocannon", [...args, url], { maxBuffer: 1 << 24 });
  const result = JSON.parse(stdout) as {
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function main(): Promise<void> {
  const connections = Number(process.argv[2] ?? 50);
  const seconds = Number(process.argv[3] ?? 10);
  const tokenSecret = randomBytes(32).toString("hex");
  const stack = await startLocalStack({
    redis: { kind: "private", keyPrefix: "bench:" },
    startApp: appProcess({ tokenSecret, adminToken: randomBytes(16).toString("hex") }),
  });
  const bare = await startBare();
  try {
    stack.sim.seed({
      users: [{ login: fleet.login, tokens: [fleet.token] }],
      repos: [
        {
          fullName: repo,
          files: {
            ".github/claim-hold.yml":
              "taskClasses:\n  author: { ttl: 10m, reclaimAfter: 20m, heartbeat: 3s }\n",
          },
          collaborators: { [fleet.login]: "write" },
        },
      ],
      installations: [{ id: 7, account: "bench", repos: [repo] }],
    });
    const target = stack.sim.state.requireRepo(repo);
    stack.sim.state.createIssue(target, { title: "Task 1" }, stack.sim.state.requireUser("bench"));
    await stack.sim.flush();
    const client = createClaimHoldClient({ baseUrl: stack.app.url, githubToken: fleet.token, retries: 0 });
    const { lease } = await client.claim({ repo, issue: 1, actor: { runtime: "bench", sessionId: "hb" } });
    const heartbeatUrl = `${stack.app.url}/api/v1/leases/${encodeURIComponent(lease.id)}/heartbeat`;
    const headers = { authorization: `Bearer ${lease.token}`, "content-type": "application/json" };
    // Warm both up, then measure them back to back, twice, alternating.
    await autocannon(heartbeatUrl, { connections, seconds: 2, headers });
    await autocannon(bare.url, { connections, seconds: 2 });
    const mark = stack.sim.requests.mark();
    const rows = [];
    for (let round = 0; round < 2; round++) {
      const hb = await autocannon(heartbeatUrl, { connections, seconds, headers });
      const base = await autocannon(bare.url, { connections, seconds });
      rows.push({ hb, base, ratio: hb.rps / base.rps });
    }
    const githubRequests = stack.sim.requests.since(mark).length;
    process.stdout.write(
      `${JSON.stringify({ connections, seconds, rows, githubRequestsDuringHeartbeats: githubRequests }, null, 2)}\n`,
    );
  } finally {
    bare.child.kill();
    await stack.stop();
  }
}

await main();
process.exit(0);
