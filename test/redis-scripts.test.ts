// The Redis stores' Lua files: each belongs to one typed definition, names its keys and arguments, and loads with its includes.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { throttleScripts } from "../src/providers/github/shared-throttle.js";
import { fenceScripts } from "../src/providers/redis/redis-fence-store.js";
import { outboxScripts } from "../src/providers/redis/redis-outbox-store.js";
import {
  defineScript,
  literals,
  scriptSource,
  tagged,
  tuple,
  value,
} from "../src/providers/redis/script-runner.js";
import { storeScripts } from "../src/providers/redis/store-scripts.js";

const luaDirectory = new URL("../src/providers/redis/lua/", import.meta.url);
const definitions = [
  ...storeScripts.definitions,
  ...fenceScripts.definitions,
  ...outboxScripts.definitions,
  ...throttleScripts.definitions,
];
const scriptFiles = readdirSync(luaDirectory).filter((name) => name.endsWith(".lua"));
const includeFiles = readdirSync(new URL("includes/", luaDirectory)).filter((name) => name.endsWith(".lua"));
const read = (path: string) => readFileSync(new URL(path, luaDirectory), "utf8");

describe("the Redis stores' Lua scripts", () => {
  it("are one file per definition, named <name>-<number of keys>.lua", () => {
    expect(definitions.map((d) => `${d.name}-${d.keys.length}.lua`).sort()).toStrictEqual(scriptFiles.sort());
  });

  it("use every include, and name keys and arguments instead of positions", () => {
    const files = [...scriptFiles, ...includeFiles.map((name) => `includes/${name}`)];
    const texts = files.map(read).join("\n");
    for (const include of includeFiles) {
      expect(texts, include).toContain(`--- @include "${include.replace(/\.lua$/, "")}"`);
    }
    for (const file of files) {
      expect(read(file), file).not.toMatch(/KEYS\[|ARGV\[\d/);
    }
  });

  it("bind KEY and ARG in the definition's order, then each include once, dependencies first", () => {
    const definition = defineScript({
      name: "markStale",
      keys: ["record", "deadlines", "repository"],
      args: ["generation", "now", "requireSilentMs", "storeEpoch", "member"],
      replies: tagged({ marked: ["record"], skipped: ["reason", "current"] }),
    });
    const source = scriptSource(definition, { HISTORY_LIMIT: 50 });
    expect(source.split("\n").slice(0, 3)).toStrictEqual([
      "local HISTORY_LIMIT = 50",
      "local KEY = {record = KEYS[1], deadlines = KEYS[2], repository = KEYS[3]}",
      "local ARG = {generation = ARGV[1], now = ARGV[2], requireSilentMs = ARGV[3], storeEpoch = ARGV[4], member = ARGV[5]}",
    ]);
    // indexes and guards both include liveness: it is read once, before either uses it.
    const defined = (fn: string) => source.split(`local function ${fn}(`).length - 1;
    expect(defined("alive_at")).toBe(1);
    expect(source.indexOf("local function alive_at(")).toBeLessThan(
      source.indexOf("local function index_record("),
    );
    expect(source.indexOf("local function alive_at(")).toBeLessThan(
      source.indexOf("local function still_live("),
    );
    expect(source).not.toContain("@include");
  });
});

describe("a script's reply, decoded by the names its definition declares", () => {
  const refusals = tagged({ ok: ["record"], superseded: ["current", "rotatedAt"], missing: [] });

  it("names a tagged tuple's fields after its kind; a field the script left off is null", () => {
    expect(refusals.decode(["ok", ["generation", "3"]], "verify")).toStrictEqual({
      kind: "ok",
      record: ["generation", "3"],
    });
    expect(refusals.decode(["superseded", ["generation", "4"]], "verify")).toStrictEqual({
      kind: "superseded",
      current: ["generation", "4"],
      rotatedAt: null,
    });
    expect(refusals.decode(["missing"], "verify")).toStrictEqual({ kind: "missing" });
  });

  it("refuses a kind, a shape or a value the definition does not declare, naming the script", () => {
    expect(() => refusals.decode(["gone", "expired", []], "verify")).toThrow(
      `the Redis store's verify script answered unexpectedly: ["gone","expired",[]]`,
    );
    expect(() => refusals.decode("ok", "verify")).toThrow(/verify script answered unexpectedly/);
    expect(() => literals("restored", "exists").decode("replaced", "restore")).toThrow(/restore script/);
    expect(() => tuple("record", "previous").decode(1, "humanClaim")).toThrow(/humanClaim script/);
  });

  it("names an untagged tuple's fields, a last `name...` taking the rest, and a single value", () => {
    expect(tuple("refreshedAt", "total", "facts...").decode(["", 2, "{}", "[]"], "queuePage")).toStrictEqual({
      refreshedAt: "",
      total: 2,
      facts: ["{}", "[]"],
    });
    expect(value("member", null).decode(null, "queueReserve")).toStrictEqual({ member: null });
    expect(literals(1, 0).decode(0, "forget")).toBe(0);
  });
});
