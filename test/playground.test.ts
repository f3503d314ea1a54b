// `npm run playground` as a person uses it: start it, paste what it prints, drive the App, Ctrl-C.
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
let child: ChildProcess | undefined;

afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  child = undefined;
});

interface Printed {
  exports: { url: string; token: string; comment: string }[];
  adminToken: string;
  reclaimCommand: string;
}

/** What a person would copy from the banner: each account's exports, the admin token, the /reclaim command. */
function readBanner(stdout: string): Printed {
  const lines = stdout.split("\n");
  const exports = lines.flatMap((line, i) => {
    const match = /^export CLAIM_HOLD_URL=(\S+) GITHUB_TOKEN=(\S+)/.exec(line);
    return match ? [{ url: match[1]!, token: match[2]!, comment: lines[i - 1] ?? "" }] : [];
  });
  const adminToken = /admin token ([0-9a-f]+)/.exec(stdout)?.[1];
  const start = lines.findIndex((line) => line.startsWith("curl") && line.includes("/comments"));
  if (!adminToken || start < 0) throw new Error(`the banner lacks the admin token or /reclaim:\n${stdout}`);
  const reclaimCommand = lines
    .slice(start, start + 3)
    .join("\n")
    .replace(/\\\n/g, " ");
  return { exports, adminToken, reclaimCommand };
}

/** Starts the playground as `npm run playground` does (tsx) and resolves with its stdout once it says ready. */
async function startPlayground(): Promise<{ child: ChildProcess; stdout: () => string }> {
  const started = spawn(process.execPath, ["--import", "tsx", "scripts/playground.ts"], {
    // The embedded store: no REDIS_URL. JSON lines on stderr, warnings and worse only.
    env: { PATH: process.env.PATH, LOG_LEVEL: "warn", LOG_FORMAT: "json" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = started;
  let stdout = "";
  let stderr = "";
  started.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    started.stdout?.on("data", (chunk) => {
      stdout += chunk;
      if (/\nready in [\d.]+ s/.test(stdout)) resolve();
    });
    started.once("exit", (code) =>
      reject(new Error(`the playground exited (${code}):\n${stdout}\n${stderr}`)),
    );
  });
  return { child: started, stdout: () => stdout };
}

function claim(url: string, token: string, issue: number, sessionId: string) {
  return fetch(`${url}/api/v1/claims`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ repo: "octo/widgets", issue, actor: { sessionId } }),
  });
}

describe("npm run playground", () => {
  it("prints exports that drive the App, a /reclaim that works, and stops cleanly on SIGINT", async () => {
    const playground = await startPlayground();
    const printed = readBanner(playground.stdout());
    expect(printed.exports.map((e) => e.comment)).toEqual([
      expect.stringContaining("agent-one"),
      expect.stringContaining("agent-two"),
      expect.stringContaining("alice"),
    ]);
    const [agentOne, agentTwo] = printed.exports;

    // An agent claims #1 with the printed URL and token; the other agent account is refused it.
    const claimed = await claim(agentOne!.url, agentOne!.token, 1, "one-1");
    expect(claimed.status).toBe(201);
    expect(await claimed.json()).toMatchObject({ lease: { subject: "octo/widgets#1", generation: 1 } });
    const refused = await claim(agentTwo!.url, agentTwo!.token, 1, "two-1");
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: "held" });

    // The CLI of this clone, driven by nothing but the printed exports, as in the README.
    const clone = mkdtempSync(join(tmpdir(), "claim-hold-playground-"));
    try {
      execFileSync("git", ["init", "--quiet", clone]);
      const cli = (...args: string[]) =>
        run(process.execPath, [resolve("bin/claim-hold.js"), ...args, "--json"], {
          cwd: clone,
          env: {
            PATH: process.env.PATH,
            HOME: clone,
            CLAIM_HOLD_URL: agentTwo!.url,
            GH_TOKEN: agentTwo!.token,
            CLAIM_HOLD_SESSION_ID: "two-cli",
          },
        });
      const queue = JSON.parse((await cli("queue", "octo/widgets")).stdout) as { queue: { issue: number }[] };
      expect(queue.queue.map((row) => row.issue)).not.toContain(1);
      const next = JSON.parse((await cli("next", "octo/widgets")).stdout) as { lease?: { subject?: string } };
      expect(next).toMatchObject({ ok: true, lease: { subject: `octo/widgets#${queue.queue[0]?.issue}` } });
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }

    // The printed admin token opens the operator routes (the dashboard's login takes the same token).
    const sweep = await fetch(`${agentOne!.url}/api/v1/admin/janitor/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${printed.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ dryRun: true }),
    });
    expect(sweep.status).toBe(200);

    // The printed /reclaim, run as pasted: the person's claim replaces the agent's.
    const posted = await run("sh", ["-c", printed.reclaimCommand]);
    expect(JSON.parse(posted.stdout)).toMatchObject({ body: "/reclaim", user: { login: "alice" } });
    let answer: { error?: string } = {};
    for (let attempt = 0; attempt < 200 && answer.error !== "human_held"; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      answer = (await (await claim(agentTwo!.url, agentTwo!.token, 1, "two-1")).json()) as { error?: string };
    }
    expect(answer.error).toBe("human_held");

    // Ctrl-C: the playground stops everything and exits 0.
    const exited = once(playground.child, "exit");
    playground.child.kill("SIGINT");
    const [code] = await exited;
    expect(code).toBe(0);
    expect(playground.stdout()).toMatch(/SIGINT: stopping the playground…\nstopped\n$/);
  }, 90_000);
});
