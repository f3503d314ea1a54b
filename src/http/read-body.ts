// Request bodies of the API: the size limit and the strict JSON parse that names the failing field.
import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import type { z } from "zod";
import { UserError } from "./user-error.js";

export const maxBodyBytes = 64 * 1024;

/** The answer to a body over `maxBodyBytes` (Hono's body limit and the heartbeat's own route). */
export const payloadTooLarge = {
  status: 413,
  body: { error: "payload_too_large", message: "Bodies are limited to 64 KiB." },
} as const;

/** Parses a JSON body against a strict schema: 400 for bad JSON, 415 for other media, 422 naming the field. */
export async function readBody<T extends z.ZodType>(
  c: Context,
  schema: T,
  optional = false,
): Promise<z.infer<T>> {
  return parseBody(await c.req.text(), c.req.header("content-type"), schema, optional);
}

/**
 * `readBody` on a body already read and decoded (`text`, as a web Request's text(): UTF-8, a
 * byte-order mark dropped) with its `Content-Type` (several joined with ", ", as Headers does).
 */
export function parseBody<T extends z.ZodType>(
  text: string,
  contentType: string | undefined,
  schema: T,
  optional = false,
): z.infer<T> {
  if (text.trim() === "" && optional) return schema.parse({});
  if (!/^application\/json\b/i.test(contentType ?? "")) {
    throw new UserError(415, "unsupported_media_type", "Send the body as application/json.");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UserError(400, "invalid_json", "The body is not valid JSON.");
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const unknownKey = issue.code === "unrecognized_keys" ? issue.keys[0] : undefined;
    const field = [...issue.path, ...(unknownKey ? [unknownKey] : [])].map(String).join(".") || "(body)";
    const message = unknownKey ? `Unknown field "${field}".` : `Field "${field}": ${issue.message}.`;
    throw new UserError(422, "invalid_request", message, { field });
  }
  return parsed.data;
}

/** A header of a node request as a web Headers object reads it: every occurrence, joined with ", ". */
export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const raw = req.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length !== name.length || raw[i]!.toLowerCase() !== name) continue;
    value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}

const utf8 = new TextDecoder();

/** The body of a request whose client went away before sending all of it: there is no one to answer. */
export const clientGone = Symbol("clientGone");

/**
 * The body of a node request as text, with Hono's body limit: a declared `Content-Length` over
 * `maxBodyBytes` is refused unread; without one (chunked), reading stops at the first byte over.
 * Resolves null when the body is too large, `clientGone` when the request ended early.
 */
export function readNodeBody(req: IncomingMessage): Promise<string | null | typeof clientGone> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && req.headers["transfer-encoding"] === undefined) {
    if (Number.parseInt(declared, 10) > maxBodyBytes) return Promise.resolve(null);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (value: string | null | typeof clientGone) => {
      req.off("data", onData).off("end", onEnd).off("error", onGone).off("close", onGone);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) settle(null);
      else chunks.push(chunk);
    };
    const onEnd = () => settle(utf8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    const onGone = () => settle(clientGone);
    req.on("data", onData).on("end", onEnd).on("error", onGone).on("close", onGone);
  });
}

/** The body's bytes, or null past `limit` (the rest is drained, not kept). */
export async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) tooLarge = true;
    if (!tooLarge) chunks.push(chunk);
  }
  return tooLarge ? null : Buffer.concat(chunks);
}
