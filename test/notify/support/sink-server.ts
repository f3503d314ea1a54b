// A notification sink on loopback (node:http): records every request with its raw body, answers as the test says.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface SinkRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** How the sink answers one request: a status, or `"hang"` (never answers until the sink closes). */
export type SinkAnswer = number | "hang";

export interface SinkServer {
  /** `http://127.0.0.1:<port>`; sinks are `${base}/<secret path>`. */
  base: string;
  requests: SinkRequest[];
  /** The answer to the next requests (default 200); a function decides per request. */
  answer: SinkAnswer | ((request: SinkRequest) => SinkAnswer);
  /** Resolves once `count` requests arrived in all. */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startSinkServer(): Promise<SinkServer> {
  const hanging = new Set<ServerResponse>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const sink: SinkServer = {
    base: "",
    requests: [],
    answer: 200,
    received(count) {
      if (sink.requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = {
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      sink.requests.push(request);
      for (const waiter of waiters.filter((w) => sink.requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const answer = typeof sink.answer === "function" ? sink.answer(request) : sink.answer;
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(answer, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  sink.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return sink;
}
