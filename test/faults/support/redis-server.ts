// A dedicated, throw-away redis-server for fault tests (flush, restart, pause), and a TCP proxy in front of it.
import { type ChildProcess, spawn } from "node:child_process";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { Redis } from "ioredis";
import { freePort } from "../../support/app-harness.js";

/** One redis-server on a free loopback port, without persistence: a restart comes back empty. */
export class ThrowawayRedis {
  #child: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  static async start(): Promise<ThrowawayRedis> {
    const server = new ThrowawayRedis(await freePort());
    await server.boot();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async boot(): Promise<void> {
    const child = spawn(
      "redis-server",
      ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdio: "ignore" },
    );
    this.#child = child;
    for (let i = 0; i < 200; i++) {
      const admin = new Redis(this.port, "127.0.0.1", {
        lazyConnect: true,
        retryStrategy: () => null,
        maxRetriesPerRequest: 0,
      });
      admin.on("error", () => undefined);
      try {
        await admin.connect();
        await admin.ping();
        admin.disconnect();
        return;
      } catch {
        admin.disconnect();
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
    throw new Error(`redis-server did not come up on port ${this.port}`);
  }

  /** SIGKILL, then a fresh (empty) server on the same port. */
  async restart(): Promise<void> {
    await this.kill();
    await this.boot();
  }

  /** SIGSTOP: the server keeps its connections but answers nothing (a black hole), until `resume`. */
  pause(): void {
    this.#child?.kill("SIGSTOP");
  }

  resume(): void {
    this.#child?.kill("SIGCONT");
  }

  async kill(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  }

  /** Runs one admin command on this server only (never the shared one). */
  async command(...args: (string | number)[]): Promise<unknown> {
    const admin = new Redis(this.port, "127.0.0.1", { retryStrategy: () => null, maxRetriesPerRequest: 0 });
    admin.on("error", () => undefined);
    try {
      return await admin.call(String(args[0]), ...args.slice(1).map(String));
    } finally {
      admin.disconnect();
    }
  }
}

/**
 * A TCP proxy between the App and Redis: `cut()` makes Redis unreachable (connections reset, new ones
 * refused), `slow(ms)` delays every chunk in both directions, `restore()` puts things back.
 */
export class RedisProxy {
  #mode: "open" | "cut" = "open";
  #delayMs = 0;
  readonly #sockets = new Set<Socket>();
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: number): Promise<RedisProxy> {
    const port = await freePort();
    let proxy: RedisProxy | undefined;
    const server = createServer((client) => proxy!.accept(client, target));
    proxy = new RedisProxy(server, port);
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    return proxy;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  accept(client: Socket, target: number): void {
    if (this.#mode === "cut") {
      client.destroy();
      return;
    }
    const upstream = createConnection(target, "127.0.0.1");
    this.#sockets.add(client).add(upstream);
    const pipe = (from: Socket, to: Socket) =>
      from.on("data", (chunk) => {
        if (this.#delayMs === 0) to.write(chunk);
        else setTimeout(() => to.writable && to.write(chunk), this.#delayMs);
      });
    pipe(client, upstream);
    pipe(upstream, client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
  }

  cut(): void {
    this.#mode = "cut";
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  slow(ms: number): void {
    this.#delayMs = ms;
  }

  restore(): void {
    this.#mode = "open";
    this.#delayMs = 0;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
