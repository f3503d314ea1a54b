// A private `redis-server` on a free loopback port, for tests and benchmarks that flush, restart or pause it (never the shared one).
import { type ChildProcess, spawn } from "node:child_process";
import { Redis } from "ioredis";
import { freePort } from "./free-port.js";

export interface PrivateRedis {
  url: string;
  port: number;
  /** A reconnecting client that fails a command fast (one retry); `stop()` disconnects it. */
  client(): Redis;
  /** Runs one admin command on this server only, on a connection of its own. */
  command(...args: (string | number)[]): Promise<unknown>;
  /** SIGKILL, then a fresh (empty: no persistence) server on the same port. */
  restart(): Promise<void>;
  /** SIGSTOP: the server keeps its connections but answers nothing (a black hole), until `resume`. */
  pause(): void;
  resume(): void;
  /** SIGKILL: gone at once, even while paused. */
  kill(): Promise<void>;
  /** Disconnects the clients it handed out and kills the server. */
  stop(): Promise<void>;
}

function spawnServer(port: number): ChildProcess {
  return spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
}

/** Resolves once a fresh connection gets PONG (each try on a new one: a refused connect does not retry). */
async function waitForPong(port: number, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const probe = new Redis(port, "127.0.0.1", {
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
    });
    probe.on("error", () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      return;
    } catch {
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    } finally {
      probe.disconnect();
    }
  }
  throw new Error(`redis-server did not come up on port ${port}`);
}

/** Starts `redis-server --save "" --appendonly no` and waits until it answers PING. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const clients: Redis[] = [];
  const boot = async () => {
    const started = spawnServer(port);
    child = started;
    await waitForPong(port, started);
  };
  const kill = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once("exit", () => resolve());
      running.kill("SIGKILL");
    });
  };
  await boot();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    client() {
      const redis = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 1, lazyConnect: false });
      redis.on("error", () => undefined);
      clients.push(redis);
      return redis;
    },
    async command(...args) {
      const admin = new Redis(port, "127.0.0.1", { retryStrategy: () => null, maxRetriesPerRequest: 0 });
      admin.on("error", () => undefined);
      try {
        return await admin.call(String(args[0]), ...args.slice(1).map(String));
      } finally {
        admin.disconnect();
      }
    },
    async restart() {
      await kill();
      await boot();
    },
    pause() {
      child?.kill("SIGSTOP");
    },
    resume() {
      child?.kill("SIGCONT");
    },
    kill,
    async stop() {
      for (const redis of clients) redis.disconnect();
      await kill();
    },
  };
}
