// Each Lua script's header (BullMQ's `--[[ … ]]` block, by name) lists the keys, arguments and replies its definition and body have.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { throttleScripts } from "../src/providers/github/shared-throttle.js";
import { fenceScripts } from "../src/providers/redis/redis-fence-store.js";
import { outboxScripts } from "../src/providers/redis/redis-outbox-store.js";
import type { ReplyDeclaration, ReplyLiteral } from "../src/providers/redis/script-replies.js";
import { type ScriptDefinition, scriptSource } from "../src/providers/redis/script-runner.js";
import { storeScripts } from "../src/providers/redis/store-scripts.js";

const luaDirectory = new URL("../src/providers/redis/lua/", import.meta.url);
const definitions = [
  ...storeScripts.definitions,
  ...fenceScripts.definitions,
  ...outboxScripts.definitions,
  ...throttleScripts.definitions,
];
const fileOf = (definition: ScriptDefinition) => `${definition.name}-${definition.keys.length}.lua`;
const read = (file: string) => readFileSync(new URL(file, luaDirectory), "utf8");

/**
 * A header: a purpose, then the sections `KEYS`, `ARGV`, `REST` (with further arguments) and `Reply`
 * indented four spaces, their entries six; an entry is its first word, or a reply's `{…}` shape.
 */
interface Header {
  purpose: string[];
  sections: Map<string, string[]>;
}

const headerBlock = /^--\[\[\n([\s\S]*?)\n\]\]\n/;

function parseHeader(text: string): Header | null {
  const block = headerBlock.exec(text)?.[1];
  if (block === undefined) return null;
  const header: Header = { purpose: [], sections: new Map() };
  let entries: string[] | null = null;
  for (const line of block.split("\n")) {
    const section = /^ {4}(KEYS|ARGV|REST|Reply)\b/.exec(line)?.[1];
    if (section) {
      entries = [];
      header.sections.set(section, entries);
    } else if (/^ {6}\S/.test(line)) {
      entries?.push(/^ {6}(\{[^}]*\}|\S+)/.exec(line)![1]!);
    } else if (/^ {2}\S/.test(line) && entries === null) {
      header.purpose.push(line.trim());
    }
  }
  return header;
}

/** Lua without its comments (no string in these scripts contains `--`). */
function code(lua: string): string {
  return lua.replace(/--\[\[[\s\S]*?\]\]/g, "").replace(/--.*$/gm, "");
}

const namesRead = (lua: string, table: "KEY" | "ARG") =>
  new Set([...lua.matchAll(new RegExp(`\\b${table}\\.(\\w+)`, "g"))].map((m) => m[1]!));

/** The first elements of the tuples the code returns: `return {'held', …}` → held. */
const kindsReturned = (lua: string) =>
  new Set([...lua.matchAll(/\breturn\s*\{\s*'(\w+)'/g)].map((m) => m[1]!));

/** A reply entry's kind: `{'held', current, intent}` → held; an entry without one (a value) has none. */
const kindListed = (entry: string) => /^\{'(\w+)'/.exec(entry)?.[1];

/** A literal as a header writes it: `1`, `'restored'`, `false`, `{}`. */
const literal = (value: ReplyLiteral) =>
  value === null
    ? "false"
    : typeof value === "string"
      ? `'${value}'`
      : typeof value === "number"
        ? `${value}`
        : "{}";

/** The Reply entries a definition's `replies` declare, as its header writes them. */
function declared(replies: ReplyDeclaration): string[] {
  switch (replies.form) {
    case "tagged":
      return Object.entries(replies.kinds).map(
        ([kind, fields]) => `{${[`'${kind}'`, ...fields].join(", ")}}`,
      );
    case "tuple":
      return [`{${replies.fields.join(", ")}}`];
    case "value":
      return [replies.name, ...replies.or.map(literal)];
    case "literals":
      return replies.values.map(literal);
  }
}

describe.each(definitions.map((definition) => [fileOf(definition), definition] as const))(
  "the header of %s",
  (file, definition) => {
    const text = read(file);
    const header = parseHeader(text);
    const body = code(text);
    // The script as Redis runs it (its includes resolved, each once), without comments.
    const loaded = code(scriptSource(definition, {}));
    const section = (name: string) => header?.sections.get(name) ?? [];

    it("opens the file with a purpose, then KEYS, ARGV and Reply", () => {
      expect(header, "no --[[ … ]] block at the top").not.toBeNull();
      expect(header!.purpose.length).toBeGreaterThan(0);
      expect([...header!.sections.keys()].filter((name) => name !== "REST")).toStrictEqual([
        "KEYS",
        "ARGV",
        "Reply",
      ]);
    });

    it("lists the definition's keys in its order, and the script reads no other key", () => {
      expect(section("KEYS")).toStrictEqual(definition.keys);
      const undefinedKeys = [...namesRead(loaded, "KEY")].filter((name) => !definition.keys.includes(name));
      expect(undefinedKeys).toStrictEqual([]);
    });

    it("lists every argument the script and its includes read, in the definition's order, and no other", () => {
      const reads = namesRead(loaded, "ARG");
      const undefinedArgs = [...reads].filter((name) => !definition.args.includes(name));
      expect(undefinedArgs).toStrictEqual([]);
      expect(section("ARGV")).toStrictEqual(definition.args.filter((name) => reads.has(name)));
    });

    it("has a REST section exactly when the definition passes further arguments", () => {
      expect(header?.sections.has("REST")).toBe(definition.rest);
      expect(/\bREST\b/.test(body)).toBe(definition.rest);
    });

    it("lists the replies its definition declares: their kinds and fields, in order", () => {
      expect(section("Reply")).toStrictEqual(declared(definition.replies));
    });

    it("lists every reply kind the script and its includes return, and no other", () => {
      const listed = section("Reply")
        .map(kindListed)
        .filter((kind) => kind !== undefined);
      expect(listed.sort()).toStrictEqual([...kindsReturned(loaded)].sort());
    });

    it("lists every literal value the script returns", () => {
      const literals = [...body.matchAll(/\breturn\s+(-?\d+|'[^']*'|false|true)(?=\s|$)/g)].map((m) => m[1]!);
      for (const literal of literals) expect(section("Reply"), literal).toContain(literal);
    });
  },
);
