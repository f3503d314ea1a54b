// The published ./client entry: its import closure stays inside src/agent/client and src/contract, and the build emits it.
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const entry = resolve(root, "src/agent/client/index.ts");
const allowed = ["src/agent/client/", "src/contract/"];

/** Specifiers of `import … from`, `export … from` and `import("…")` in a module's text. */
function specifiers(text: string): string[] {
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;
  return [...text.matchAll(pattern)].map((match) => match[1] as string);
}

const isRelative = (specifier: string) => specifier.startsWith("./") || specifier.startsWith("../");

function resolveSource(from: string, specifier: string): string {
  const target = resolve(dirname(from), specifier);
  const candidates = [target, target.replace(/\.js$/, ".ts"), `${target}.ts`, resolve(target, "index.ts")];
  const found = candidates.find((candidate) => existsSync(candidate) && candidate.endsWith(".ts"));
  if (!found) throw new Error(`${relative(root, from)} imports ${specifier}, which resolves to no .ts file`);
  return found;
}

/** Every module the entry reaches through relative imports, as paths relative to the repository root. */
function importClosure(start: string): string[] {
  const seen = new Set<string>([start]);
  const queue = [start];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const specifier of specifiers(readFileSync(file, "utf8")).filter(isRelative)) {
      const target = resolveSource(file, specifier);
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return [...seen].map((file) => relative(root, file)).sort();
}

describe("the ./client entry", () => {
  it("reaches only the client and the wire contract, never server code", () => {
    const closure = importClosure(entry);
    expect(closure).toContain("src/contract/api-responses.ts");
    expect(closure.filter((file) => !allowed.some((prefix) => file.startsWith(prefix)))).toEqual([]);
  });

  it("needs no npm package but zod, so installing the client pulls in no server dependency", () => {
    const packages = new Set(
      importClosure(entry).flatMap((file) =>
        specifiers(readFileSync(resolve(root, file), "utf8")).filter(
          (specifier) => !isRelative(specifier) && !specifier.startsWith("node:"),
        ),
      ),
    );
    expect([...packages]).toEqual(["zod"]);
  });

  it("is exported from the files the build writes for src/agent/client/index.ts", () => {
    const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as {
      exports: Record<string, { types: string; default: string }>;
    };
    const client = pkg.exports["./client"];
    expect(client).toEqual({
      types: "./dist/agent/client/index.d.ts",
      default: "./dist/agent/client/index.js",
    });
    // tsconfig.build.json compiles src/ into dist/ with the same layout.
    const build = JSON.parse(readFileSync(resolve(root, "tsconfig.build.json"), "utf8")) as {
      compilerOptions: { rootDir: string; outDir: string };
    };
    const emitted = (file: string) =>
      `./${build.compilerOptions.outDir}/${relative(build.compilerOptions.rootDir, file)}`;
    expect(emitted("src/agent/client/index.js")).toBe(client?.default);
    expect(emitted("src/agent/client/index.d.ts")).toBe(client?.types);
  });
});
