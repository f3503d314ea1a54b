// A TCP proxy in front of a fault test's private redis-server, which cuts or slows the App's connection to it.
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { freePort } from "../../../tools/local-stack/free-port.js";

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
