// The heartbeat's baselines, each run as a process of its own: a bare node:http POST server, and a no-op route on the App's own server stack.
//
//   node --import tsx bench/baseline-server.ts bare <port>     any POST: read the body, answer `{}`
//   node --import tsx bench/baseline-server.ts probot <port>   the App's server (startAppServer, Probot's
//                                                              middleware) with one `addHandler` route that
//                                                              reads the body and answers `{}`, nothing else
// Prints "up" once listening.
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createProbot } from "probot";
import { createLogger } from "../src/logger.js";
import { httpServerLimits, startAppServer } from "../src/start-app-server.js";

/** Path of the no-op Probot route. */
export const noopPath = "/bench/noop";

function answerEmpty(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
}

async function main(): Promise<void> {
  const [kind, portText] = process.argv.slice(2);
  const port = Number(portText);
  if (kind === "bare") {
    await new Promise<void>((resolve) => createServer(answerEmpty).listen(port, "127.0.0.1", resolve));
  } else if (kind === "probot") {
    const log = createLogger({ level: "warn" });
    const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
      type: "pkcs1",
      format: "pem",
    }) as string;
    await startAppServer({
      probot: createProbot({ overrides: { appId: 1, privateKey, secret: "bench", log } }),
      appFn: (_app, { addHandler }) => {
        addHandler((req, res) => {
          if (req.url !== noopPath) return false;
          answerEmpty(req, res);
          return true;
        });
      },
      host: "127.0.0.1",
      port,
      limits: httpServerLimits(),
      log,
    });
  } else {
    throw new Error(`unknown baseline ${kind}`);
  }
  process.stdout.write("up\n");
}

// Run compiled (`.js`, bench/compile-modules.ts) or through tsx.
if (/bench\/baseline-server\.[jt]s$/.test(process.argv[1] ?? "")) await main();
