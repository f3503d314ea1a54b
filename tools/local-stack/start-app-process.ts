// The App as its own process (`node --import tsx src/main.ts`) against the local stack, for tests that SIGKILL it.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { freePort } from "./free-port.js";
import type { StartApp } from "./start-local-stack.js";
import type { RunningApp } from "./start-stack-app.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

export interface AppProcess extends RunningApp {
  child: ChildProcess;
}

export interface AppProcessOptions {
  tokenSecret: string;
  adminToken: string;
  /** More environment for `src/main.ts` (jobs, intervals); default: the janitor off. */
  env?: Record<string, string>;
  /** Where the App's output (its log lines) goes: nowhere (default) or this process's stdout and stderr. */
  output?: "ignore" | "inherit";
  /** The App's entry: default `src/main.ts` through tsx's loader; a `.js` file (compiled) runs on plain node. */
  entry?: string;
}

/** Kills the process with SIGKILL and resolves when it has exited (at once if it already has). */
export async function killAppProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

/**
 * Starts `src/main.ts` configured only through its environment, as deployed: the stack's simulator as
 * GHE host, the stack's Redis URL and key prefix (so it needs a Redis stack); resolves once `/healthz` answers.
 */
export function appProcess(options: AppProcessOptions): StartApp<AppProcess> {
  return async (wiring) => {
    if (!wiring.redis) throw new Error("an App process needs the stack's Redis (not the memory store)");
    const port = await freePort();
    const githubUrl = new URL(wiring.githubBaseUrl);
    const entry = options.entry ?? "src/main.ts";
    const nodeArgs = entry.endsWith(".ts") ? ["--import", "tsx", entry] : [entry];
    const child = spawn(process.execPath, nodeArgs, {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: "test",
        APP_ID: String(wiring.credentials.appId),
        PRIVATE_KEY: wiring.credentials.privateKey,
        WEBHOOK_SECRET: wiring.credentials.webhookSecret,
        GHE_HOST: githubUrl.host,
        GHE_PROTOCOL: githubUrl.protocol.replace(":", ""),
        HOST: "127.0.0.1",
        PORT: String(port),
        REDIS_URL: wiring.redis.url,
        CLAIM_HOLD_KEY_PREFIX: wiring.redis.keyPrefix,
        CLAIM_HOLD_TOKEN_SECRET: options.tokenSecret,
        CLAIM_HOLD_ADMIN_TOKEN: options.adminToken,
        LOG_LEVEL: "warn",
        ...(options.env ?? { CLAIM_HOLD_DISABLE_JOBS: "janitor" }),
      },
      stdio: ["ignore", options.output ?? "ignore", options.output ?? "ignore"],
    });
    const url = `http://127.0.0.1:${port}`;
    const close = () => killAppProcess(child);
    for (let i = 0; i < 300; i++) {
      if (child.exitCode !== null) break;
      const up = await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) return { url, child, close };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await close();
    throw new Error("the App process did not start");
  };
}
