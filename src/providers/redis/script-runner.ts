// Loads the stores' Lua scripts from lua/*.lua and runs them by named keys and arguments (EVALSHA, EVAL on NOSCRIPT).
import { readFileSync } from "node:fs";
import type { Cluster, Redis } from "ioredis";
import { StoreUnavailableError } from "../liveness-store.js";
import type { Replies, ScriptReply } from "./script-replies.js";

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
 * A set of scripts read from disk once (at construction), registered on each client it is given.
 * ioredis' `defineCommand` sends EVALSHA and falls back to EVAL on NOSCRIPT, so a call stays one
 * round trip whether or not the server already knows the script.
 */
export class ScriptSet {
  readonly #sources: Map<ScriptDefinition, string>;

  constructor(definitions: readonly ScriptDefinition[], constants: Record<string, number> = {}) {
    this.#sources = new Map(definitions.map((d) => [d, scriptSource(d, constants)]));
  }

  get definitions(): ScriptDefinition[] {
    return [...this.#sources.keys()];
  }

  register(redis: Redis | Cluster): void {
    for (const [definition, lua] of this.#sources) {
      redis.defineCommand(definition.command, { numberOfKeys: definition.keys.length, lua });
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
