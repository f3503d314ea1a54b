// The App's pino logger: one `name` per line, children say their `component`, every token-bearing field redacted.
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";
import { redactSecrets } from "./redact-secrets.js";

/** Paths that may carry a credential: request headers (Probot's HTTP logger writes them) and our own fields. */
export const redactedPaths = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-hub-signature"]',
  'req.headers["x-hub-signature-256"]',
  'res.headers["set-cookie"]',
  "headers.authorization",
  "request.headers.authorization",
  "err.request.headers.authorization",
  "err.response.headers.authorization",
  "token",
  "*.token",
  "leaseToken",
  "*.leaseToken",
  "sessionKey",
  "*.sessionKey",
  "*.*.sessionKey",
  "privateKey",
  "secret",
];

export const logFormats = ["json", "pretty"] as const;
export type LogFormat = (typeof logFormats)[number];

/** `LOG_FORMAT` when set; otherwise pretty for a person at a terminal, JSON lines for a log collector. */
export function logFormatOf(setting: LogFormat | undefined, stdoutIsTerminal: boolean): LogFormat {
  return setting ?? (stdoutIsTerminal ? "pretty" : "json");
}

/**
 * What a child logger's bindings become: `name` (Probot's convention, `child({ name: "probot" })`) and
 * `component` are both the component, nested under the parent's (`probot/octokit`); the rest stays.
 * Pino writes every binding of every ancestor, so a second `name` would be a second `"name"` key.
 */
export function splitComponent(
  bindings: Record<string, unknown>,
  parentComponent: string | undefined,
): { component: string | undefined; rest: Record<string, unknown> } {
  const { name, component, ...rest } = bindings;
  const own = component ?? name;
  if (typeof own !== "string" || own === "") return { component: parentComponent, rest };
  return { component: parentComponent ? `${parentComponent}/${own}` : own, rest };
}

const componentKey = Symbol("claim-hold.component");
type WithComponent = Logger & { [componentKey]?: string };
type MakeChild = (this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) => Logger;

function prettyStream(destination: pino.DestinationStream | undefined): pino.DestinationStream {
  return pretty({
    ...(destination ? { destination } : { destination: 1 }),
    // Lines reach the terminal before a `process.exit()` right after them.
    sync: true,
    ignore: "pid,hostname,component",
    messageFormat: "{if component}[{component}] {end}{msg}",
  });
}

export function createLogger(
  options: { level?: string; destination?: pino.DestinationStream; format?: LogFormat } = {},
): Logger {
  const stream = options.format === "pretty" ? prettyStream(options.destination) : options.destination;
  const root = pino(
    {
      level: options.level ?? "info",
      name: "claim-hold",
      redact: { paths: redactedPaths, censor: "[redacted]" },
      // Error messages can quote a request (headers included); scrub anything token-shaped from them.
      serializers: {
        err: (error: Error) => JSON.parse(redactSecrets(JSON.stringify(pino.stdSerializers.err(error)))),
      },
      mixin: (_object, _level, logger) => {
        const component = (logger as WithComponent)[componentKey];
        return component ? { component } : {};
      },
    },
    stream,
  ) as WithComponent;
  // Children are made with `Object.create(parent)`, so every descendant (Probot's included) goes through this.
  const pinoChild = root.child as unknown as MakeChild;
  function child(
    this: WithComponent,
    bindings: pino.Bindings,
    childOptions?: pino.ChildLoggerOptions,
  ): Logger {
    const { component, rest } = splitComponent(bindings, this[componentKey]);
    const made: WithComponent = pinoChild.call(this, rest, childOptions);
    if (component) made[componentKey] = component;
    return made;
  }
  root.child = child as unknown as Logger["child"];
  return root;
}
