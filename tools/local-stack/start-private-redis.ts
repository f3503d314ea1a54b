// A private `redis-server` on a free loopback port, for tests and benchmarks that flush it (never the shared one).
import { type ChildProcess, spawn } from "node:child_process";
import { Redis } from "ioredis";
import { freePort } from "./start-local-stack.js";

export interface PrivateRedis {
  url: string;
  port: number;
  /** A client that fails fast, like the App's own. */
  client(): Redis;
  stop(): Promise<void>;
}

/** Starts `redis-server --save "" --appendonly no` and waits until it answers PING. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const clients: Redis[] = [];
  const client = () => {
    const redis = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 1, lazyConnect: false });
    redis.on("error", () => undefined);
    clients.push(redis);
    return redis;
  };
  const probe = client();
  for (let attempt = 0; ; attempt++) {
    try {
      await probe.ping();
      break;
    } catch (error) {
      if (attempt > 50 || child.exitCode !== null)
        throw new Error(`redis-server did not start on ${port}: ${error}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    client,
    async stop() {
      for (const redis of clients) redis.disconnect();
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}
