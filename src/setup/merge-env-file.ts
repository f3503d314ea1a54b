// Reading and merging `.env`: the setup flow writes the new App's credentials there, start-up reads it.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { parseEnv } from "node:util";

/**
 * One `KEY=value` line that `node:util` `parseEnv` (and `node --env-file`) reads back as `value`: a
 * multi-line value (a PEM) in double quotes with `\n` for each newline, which is the only escape
 * `parseEnv` knows; other values bare or in single quotes. Throws for a value it cannot write back.
 */
export function envLine(key: string, value: string): string {
  if (/^[^\s"'`#\\]*$/.test(value)) return `${key}=${value}`;
  if (/\n/.test(value)) {
    if (/["\\]/.test(value)) throw new Error(`${key}: a multi-line value with a quote or backslash`);
    return `${key}="${value.replace(/\r?\n/g, "\\n")}"`;
  }
  if (!value.includes("'")) return `${key}='${value}'`;
  if (!value.includes('"')) return `${key}="${value}"`;
  throw new Error(`${key}: a value with both kinds of quote`);
}

/** Merges `values` into the file (other keys kept); owner-only, as it holds the App's private key. */
export function mergeEnvFile(path: string, values: Record<string, string>): void {
  const current = existsSync(path) ? parseEnv(readFileSync(path, "utf8")) : {};
  const merged = { ...current, ...values };
  const text = Object.entries(merged)
    .map(([key, value]) => envLine(key, value ?? ""))
    .join("\n");
  // A new owner-only file renamed over the old one: the key is never in a file others can read,
  // whatever mode an existing `.env` had, and a failed write leaves the old file as it was.
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    writeFileSync(temporary, `${text}\n`, { mode: 0o600, flag: "wx" });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
