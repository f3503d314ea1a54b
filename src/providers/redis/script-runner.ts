// Loads the stores' Lua scripts from lua/*.lua and runs them by named keys and arguments (EVALSHA, EVAL on NOSCRIPT).
import { readFileSync } from "node:fs";
import type { Cluster, Redis } from "ioredis";
import { StoreUnavailableError } from "../liveness-store.js";
import { type Replies, type ScriptReply, unexpectedReply } from "./script-replies.js";

export type { ScriptReply } from "./script-replies.js";
export { literals, tagged, tuple, value } from "./script-replies.js";

/**
 * One script: `lua/<name>-<keys.length>.lua` (BullMQ's naming). The loader binds `KEY.<name>` and
 * `ARG.<name>` in the script to KEYS/ARGV in the order given here, so the order lives in one place;
 * with `rest`, further ARGV (a record's field/value pairs) follow the named ones from `ARGV[REST]`.
 * `replies` names what the script answers (its header's Reply section), and `runScript` answers that.
 */
export interface ScriptDefinition<K extends string = string, A extends string = string, R = unknown> {
  name: string;
  keys: readonly K[];
  args: readonly A[];
  rest: boolean;
  replies: Replies<R>;
  /** The ioredis command it is registered as (prefixed so it never shadows a Redis command). */
  command: string;
}

export function defineScript<const K extends string, const A extends string, R>(definition: {
  name: string;
  keys: readonly K[];
  args: readonly A[];
  rest?: boolean;
  replies: Replies<R>;
}): ScriptDefinition<K, A, R> {
  return { ...definition, rest: definition.rest ?? false, command: `claimhold_${definition.name}` };
}

/** What `runScript` answers for a definition. */
export type ReplyOf<D> = D extends ScriptDefinition<string, string, infer R> ? R : never;

export interface ScriptCall<K extends string, A extends string> {
  keys: Record<K, string>;
  args: Record<A, string | number>;
  rest?: string[];
}

const includeDirective = /^--- @include "([\w-]+)"\s*$/gm;
const luaDirectory = new URL("./lua/", import.meta.url);

function readLua(path: string): string {
  return readFileSync(new URL(path, luaDirectory), "utf8");
}

/** A script's text with each `--- @include "x"` replaced by lua/includes/x.lua, each file once, dependencies first. */
function resolveIncludes(text: string, included: Set<string>): string {
  return text.replace(includeDirective, (_, name: string) => {
    if (included.has(name)) return "";
    included.add(name);
    return resolveIncludes(readLua(`includes/${name}.lua`), included);
  });
}

/** The full Lua text of a script: constants, the KEY/ARG tables, its includes, then its body. */
export function scriptSource(definition: ScriptDefinition, constants: Record<string, number>): string {
  const prologue = [
    ...Object.entries(constants).map(([name, value]) => `local ${name} = ${value}`),
    `local KEY = {${definition.keys.map((name, i) => `${name} = KEYS[${i + 1}]`).join(", ")}}`,
    `local ARG = {${definition.args.map((name, i) => `${name} = ARGV[${i + 1}]`).join(", ")}}`,
    ...(definition.rest ? [`local REST = ${definition.args.length + 1}`] : []),
  ];
  const body = resolveIncludes(readLua(`${definition.name}-${definition.keys.length}.lua`), new Set());
  return `${prologue.join("\n")}\n${body}`;
}

/**
 * The Lua text of a script's batch variant: one call runs the script for several keys/arguments
 * segments in turn, each as if it were called alone, and answers one entry per segment.
 *
 *   KEYS   the definition's keys of segment 1, then of segment 2, …
 *   ARGV   the number of segments, then the definition's arguments of segment 1, of segment 2, …
 *   Reply  per segment {1, reply} (what the script answered), or {0, message} when it raised an
 *          error (pcall: the segments after it still run) or answered an error reply
 *
 * The constants and includes stay at the top level (Lua allows 200 locals per function); `KEY` and
 * `ARG` are top-level locals too, set before each segment, so includes that read them see the
 * segment's; the body becomes one local function, so its `return`s answer its segment. Scripts with
 * `rest` arguments have no fixed segment width, so they are refused.
 */
export function batchScriptSource(definition: ScriptDefinition, constants: Record<string, number>): string {
  if (definition.rest) {
    throw new Error(`the Redis script "${definition.name}" takes rest arguments, so it cannot be batched`);
  }
  const text = readLua(`${definition.name}-${definition.keys.length}.lua`);
  const directives = [...text.matchAll(includeDirective)].map((match) => match[0].trim());
  const includes = resolveIncludes(directives.join("\n"), new Set());
  const body = text.replace(includeDirective, "");
  const keyCount = definition.keys.length;
  const argCount = definition.args.length;
  const segment = (names: readonly string[], table: string, base: string) =>
    `{${names.map((name, i) => `${name} = ${table}[${base} + ${i + 1}]`).join(", ")}}`;
  return [
    ...Object.entries(constants).map(([name, value]) => `local ${name} = ${value}`),
    "local KEY, ARG",
    includes,
    "local function batch_one()",
    body,
    "end",
    "local batch_replies = {}",
    "for batch_i = 0, tonumber(ARGV[1]) - 1 do",
    `  KEY = ${segment(definition.keys, "KEYS", `batch_i * ${keyCount}`)}`,
    `  ARG = ${segment(definition.args, "ARGV", `1 + batch_i * ${argCount}`)}`,
    "  local batch_ok, batch_reply = pcall(batch_one)",
    "  if type(batch_reply) == 'table' and batch_reply.err then",
    "    batch_replies[batch_i + 1] = {0, tostring(batch_reply.err)}",
    "  elseif not batch_ok then",
    "    batch_replies[batch_i + 1] = {0, tostring(batch_reply)}",
    "  else",
    "    batch_replies[batch_i + 1] = {1, batch_reply}",
    "  end",
    "end",
    "return batch_replies",
  ].join("\n");
}

/** The ioredis command a script's batch variant is registered as. */
export function batchCommandName(definition: ScriptDefinition): string {
  return `${definition.command}_batch`;
}

/**
 * A set of scripts read from disk once (at construction), registered on each client it is given.
 * ioredis' `defineCommand` sends EVALSHA and falls back to EVAL on NOSCRIPT, so a call stays one
 * round trip whether or not the server already knows the script.
 */
export class ScriptSet {
  readonly #sources: Map<ScriptDefinition, string>;
  readonly #batchSources: Map<ScriptDefinition, string>;

  /** `batched`: definitions of the set whose batch variant (`batchScriptSource`) is registered too. */
  constructor(
    definitions: readonly ScriptDefinition[],
    constants: Record<string, number> = {},
    options: { batched?: readonly ScriptDefinition[] } = {},
  ) {
    this.#sources = new Map(definitions.map((d) => [d, scriptSource(d, constants)]));
    this.#batchSources = new Map(
      (options.batched ?? []).map((d) => {
        if (!this.#sources.has(d)) throw new Error(`the batched script "${d.name}" is not in the set`);
        return [d, batchScriptSource(d, constants)];
      }),
    );
  }

  get definitions(): ScriptDefinition[] {
    return [...this.#sources.keys()];
  }

  /** The definitions whose batch variant is registered too. */
  get batched(): ScriptDefinition[] {
    return [...this.#batchSources.keys()];
  }

  register(redis: Redis | Cluster): void {
    for (const [definition, lua] of this.#sources) {
      redis.defineCommand(definition.command, { numberOfKeys: definition.keys.length, lua });
    }
    // The number of keys of a batch varies: the call passes it first.
    for (const [definition, lua] of this.#batchSources) {
      redis.defineCommand(batchCommandName(definition), { lua });
    }
  }
}

/**
 * Runs a registered script; keys and arguments are passed by name, in the definition's order (one
 * argument array, built in one pass: every heartbeat comes through here).
 */
export async function runScript<K extends string, A extends string, R>(
  redis: Redis | Cluster,
  definition: ScriptDefinition<K, A, R>,
  call: ScriptCall<K, A>,
): Promise<R> {
  const { keys, args } = definition;
  const rest = call.rest;
  const argv = new Array<string>(keys.length + args.length + (rest ? rest.length : 0));
  let at = 0;
  for (const name of keys) argv[at++] = call.keys[name];
  for (const name of args) argv[at++] = String(call.args[name]);
  if (rest) for (const value of rest) argv[at++] = value;
  const command = (redis as unknown as Record<string, (...a: string[]) => Promise<ScriptReply>>)[
    definition.command
  ];
  if (!command) throw new Error(`the Redis script "${definition.name}" is not registered on this client`);
  let reply: ScriptReply;
  try {
    reply = await command.apply(redis, argv);
  } catch (error) {
    throw isUnavailable(error) ? new StoreUnavailableError(error) : error;
  }
  return definition.replies.decode(reply, definition.name);
}

/** One call's outcome in a batch: its decoded reply, or the error its script raised for it alone. */
export type BatchOutcome<R> = { ok: true; reply: R } | { ok: false; error: Error };

/**
 * Runs a registered batch variant (`ScriptSet`'s `batched`) once for all `calls`, which must have all
 * their keys in one slot on a cluster. Answers one outcome per call, in order; a connection-level
 * failure rejects the whole batch with `StoreUnavailableError`, as `runScript` does.
 */
export async function runScriptBatch<K extends string, A extends string, R>(
  redis: Redis | Cluster,
  definition: ScriptDefinition<K, A, R>,
  calls: readonly ScriptCall<K, A>[],
): Promise<BatchOutcome<R>[]> {
  if (definition.rest || calls.some((call) => call.rest !== undefined)) {
    throw new Error(`the Redis script "${definition.name}" takes rest arguments, so it cannot be batched`);
  }
  const keys = calls.flatMap((call) => definition.keys.map((name) => call.keys[name]));
  const args = calls.flatMap((call) => definition.args.map((name) => String(call.args[name])));
  const command = (redis as unknown as Record<string, (...a: (string | number)[]) => Promise<ScriptReply>>)[
    batchCommandName(definition)
  ];
  if (!command) {
    throw new Error(
      `the batch variant of the Redis script "${definition.name}" is not registered on this client`,
    );
  }
  const reply = await callRedis(() => command.call(redis, keys.length, ...keys, calls.length, ...args));
  if (!Array.isArray(reply) || reply.length !== calls.length) {
    throw unexpectedReply(`${definition.name} (batch)`, reply);
  }
  return reply.map((entry): BatchOutcome<R> => {
    if (!Array.isArray(entry) || (entry[0] !== 1 && entry[0] !== 0)) {
      return { ok: false, error: unexpectedReply(`${definition.name} (batch)`, entry) };
    }
    if (entry[0] === 0) {
      // As a lone call's script error: an error of the call (a 500), not of the store's availability.
      return {
        ok: false,
        error: new Error(`the Redis store's ${definition.name} script failed: ${String(entry[1])}`),
      };
    }
    try {
      return { ok: true, reply: definition.replies.decode(entry[1] ?? null, definition.name) };
    } catch (error) {
      return { ok: false, error: error as Error };
    }
  });
}

/** Runs a Redis call; connection-level failures become `StoreUnavailableError` (the API's 503). */
export async function callRedis<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isUnavailable(error)) throw new StoreUnavailableError(error);
    throw error;
  }
}

/** Connection-level failures (as opposed to a script or data error), which callers answer with 503. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "MaxRetriesPerRequestError") return true;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === "string" &&
    ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN"].includes(
      code,
    )
  ) {
    return true;
  }
  return [
    /Connection is closed/i,
    /Stream isn't writeable/i,
    /enableOfflineQueue/i,
    /max retries per request/i,
    /Command timed out/i,
    /None of startup nodes is available/i,
    /Failed to refresh slots cache/i,
    /^(LOADING|CLUSTERDOWN|MASTERDOWN|TRYAGAIN)\b/,
  ].some((pattern) => pattern.test(error.message));
}

/** A flag argument as the scripts read it. */
export function flag(value: boolean): "1" | "0" {
  return value ? "1" : "0";
}

/** An optional number argument: '' when absent. */
export function optional(value: number | undefined): string {
  return value === undefined ? "" : String(value);
}
