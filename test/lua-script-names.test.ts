// The Lua scripts the source names (comments included) are the ones that exist: a script renamed for a new key count leaves no stale name behind.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = new URL("../src/", import.meta.url).pathname;
const scripts = new Set(readdirSync(join(root, "providers/redis/lua")).filter((f) => f.endsWith(".lua")));

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|lua)$/.test(entry.name)) yield path;
  }
}

describe("Lua script names in the source", () => {
  it("name only scripts that exist", () => {
    const stale: string[] = [];
    for (const file of sourceFiles(root)) {
      for (const [name] of readFileSync(file, "utf8").matchAll(/\b[a-zA-Z]+-\d+\.lua\b/g)) {
        if (!scripts.has(name)) stale.push(`${file.slice(root.length)}: ${name}`);
      }
    }
    expect(stale).toEqual([]);
  });
});
