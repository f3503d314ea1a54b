// The App's and the benchmark servers' modules compiled to plain JavaScript (esbuild, one file per module), so their processes run without tsx's loader.
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/** The bench modules that run as processes of their own (with what they import from `src/`). */
const benchEntries = ["bench/baseline-server.ts", "bench/floor-server.ts", "bench/open-loop.ts"];

export interface CompiledModules {
  /** The compiled tree's root: `src/…` and `bench/…` as in the repository, with `.js` files. */
  dir: string;
  /** The compiled path of a repository file: `compiled.path("src/main.ts")` → `<dir>/src/main.js`. */
  path(source: string): string;
  remove(): void;
}

function sourcesUnder(folder: string): string[] {
  return readdirSync(join(repoRoot, folder), { recursive: true, encoding: "utf8" })
    .filter((name) => /\.tsx?$/.test(name) && !name.endsWith(".d.ts"))
    .map((name) => join(folder, name));
}

/**
 * Compiles every module of `src/` and the bench servers into a temporary directory, file for file
 * (no bundle), so each `import.meta.url` keeps its place: the Lua scripts are found beside
 * `script-runner.js` (`./lua/`) and `package.json` three levels above `src/http/openapi/`. Packages
 * resolve through a `node_modules` link to the repository's.
 */
export async function compileModules(): Promise<CompiledModules> {
  const dir = mkdtempSync(join(tmpdir(), "claim-hold-bench-"));
  try {
    await build({
      absWorkingDir: repoRoot,
      entryPoints: [...sourcesUnder("src"), ...benchEntries],
      outdir: dir,
      outbase: ".",
      bundle: false,
      platform: "node",
      format: "esm",
      target: "node22.12",
      sourcemap: false,
      logLevel: "warning",
    });
    cpSync(join(repoRoot, "src/providers/redis/lua"), join(dir, "src/providers/redis/lua"), {
      recursive: true,
    });
    // "type": "module" for the .js files, and the version the OpenAPI document reads.
    cpSync(join(repoRoot, "package.json"), join(dir, "package.json"));
    symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    path: (source) => join(dir, source.replace(/\.tsx?$/, ".js")),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
