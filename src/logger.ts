// The App's pino logger: JSON lines with every token-bearing field redacted, whatever logs it.
import pino, { type Logger } from "pino";
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

export function createLogger(options: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? "info",
      name: "claim-hold",
      redact: { paths: redactedPaths, censor: "[redacted]" },
      // Error messages can quote a request (headers included); scrub anything token-shaped from them.
      serializers: {
        err: (error: Error) => JSON.parse(redactSecrets(JSON.stringify(pino.stdSerializers.err(error)))),
      },
    },
    options.destination,
  );
}
