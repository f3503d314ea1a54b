// The demo's notification sink: a local HTTP endpoint that prints each delivery the App sends it (the JSON body of docs/deploy.md#what-a-sink-receives).
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Timeline } from "./timeline.js";

interface Delivery {
  event: string;
  subject: string | null;
  data: Record<string, unknown>;
}

type Actor = { sessionId?: string; runtime?: string; login?: string } | undefined;
const who = (actor: Actor) =>
  actor ? (actor.sessionId ? `${actor.runtime ?? "agent"}/${actor.sessionId}` : `@${actor.login}`) : "?";

/** One line a person would read in a chat channel: what happened, to whom. */
export function summaryOf({ event, data }: Delivery): string {
  const holder = who(data.holder as Actor);
  switch (event) {
    case "takeover":
      return `${holder} took over from ${who(data.previous as Actor)} (generation ${data.previousGeneration} → ${data.generation})`;
    case "superseded-pr":
      return `PR #${data.pullRequest} @ ${String(data.headSha).slice(0, 7)} comes from superseded generation ${data.previousGeneration ?? "?"} (now ${data.generation})`;
    case "needs-human":
      return `${holder} asks for a person: "${data.blocker}"${data.mention ? ` (mentions ${data.mention})` : ""}`;
    case "budget-warn":
    case "budget-exhausted":
      return `${holder} spent $${data.spentUsd} of $${data.limitUsd}`;
    case "stalled":
      return `${holder} heartbeats but made no progress since ${data.lastProgressAt} (onStall: ${data.onStall})`;
    case "stale":
    case "reaped":
      return `${holder} silent since ${data.lastHeartbeatAt}`;
    default:
      return JSON.stringify(data).slice(0, 100);
  }
}

export interface NotifySink {
  /** The sink's URL with its secret path: handed to the App only, never printed. */
  url: string;
  /** Events received, in order. */
  readonly received: Delivery[];
  close(): Promise<void>;
}

/** Starts the sink on a free loopback port; every POST is printed on the timeline as `notify → sink`. */
export async function startNotifySink(timeline: Timeline): Promise<NotifySink> {
  // Webhook URLs are credentials (Slack's are): the path is a secret, like a real incoming webhook's.
  const path = `/hooks/${randomBytes(12).toString("hex")}`;
  const received: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== path) {
        res.writeHead(404).end();
        return;
      }
      try {
        const delivery = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Delivery;
        received.push(delivery);
        timeline.count(`notify:${delivery.event}`);
        timeline.line(
          "notify → sink",
          `${delivery.event} ${delivery.subject ?? "(installation)"}: ${summaryOf(delivery)}`,
          delivery.event === "takeover" || delivery.event === "needs-human" ? "warn" : "bad",
        );
        res.writeHead(204).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
