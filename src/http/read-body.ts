// Request bodies of the API: the size limit and the strict JSON parse that names the failing field.
import type { Context } from "hono";
import type { z } from "zod";
import { UserError } from "./user-error.js";

export const maxBodyBytes = 64 * 1024;

/** Parses a JSON body against a strict schema: 400 for bad JSON, 415 for other media, 422 naming the field. */
export async function readBody<T extends z.ZodType>(
  c: Context,
  schema: T,
  optional = false,
): Promise<z.infer<T>> {
  const text = await c.req.text();
  if (text.trim() === "" && optional) return schema.parse({});
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
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
