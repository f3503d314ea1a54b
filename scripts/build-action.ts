// Bundles the claim-hold CLI into action/dist/ for the GitHub Action: one ESM file with every dependency
// inlined, so the Action runs from its tag (or SHA) with nothing installed or fetched at run time.
// The output is committed; test/action-bundle.test.ts rebuilds it and compares bytes, so it must be
// deterministic: no timestamps, no absolute paths, no source maps.
//
//   npm run build:action                 writes action/dist/
//   tsx scripts/build-action.ts <dir>    writes the same files to <dir> (the test's fresh build)
import { chmod, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");

/** The bundle, relative to action/dist/ (action/runner.js looks for it there). */
export const bundlePath = join("bin", "claim-hold.js");

/** The bundle's entry: the CLI's main() as bin/claim-hold.js runs it. */
const entry = join("scripts", "action-cli-entry.ts");

// CommonJS dependencies inside an ESM bundle call require() for Node's built-ins.
const banner = [
  "#!/usr/bin/env node",
  "// The claim-hold CLI, bundled by scripts/build-action.ts (npm run build:action). Do not edit.",
  'import { createRequire as __claimHoldCreateRequire } from "node:module";',
  "const require = __claimHoldCreateRequire(import.meta.url);",
].join("\n");

/** Writes the bundle and its package.json (ESM marker and the version the CLI reports) under `outDir`. */
export async function buildAction(outDir: string): Promise<string[]> {
  await rm(outDir, { recursive: true, force: true });
  const { version } = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
  const outfile = join(outDir, bundlePath);
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    // node_modules may be a symbolic link (a worktree sharing one install): name inputs by the path here.
    preserveSymlinks: true,
    platform: "node",
    format: "esm",
    target: "node22.12",
    banner: { js: banner },
    legalComments: "eof",
    sourcemap: false,
    charset: "utf8",
    logLevel: "warning",
    metafile: true,
  });
  const inputs = Object.keys(result.metafile.inputs);
  const outside = inputs.filter((path) => path.startsWith("/") || path.startsWith(".."));
  if (outside.length > 0) throw new Error(`inputs outside the repository: ${outside.join(", ")}`);
  await chmod(outfile, 0o755);
  await mkdir(outDir, { recursive: true });
  // dirname(binPath)/../package.json is where the CLI reads its version; "type" keeps the bundle ESM.
  const manifest = { name: "claim-hold-action-cli", version, private: true, type: "module" };
  await writeFile(join(outDir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(join(outDir, licensesFile), await thirdPartyLicenses(inputs));
  return [bundlePath, "package.json", licensesFile];
}

const licensesFile = "THIRD-PARTY-LICENSES.txt";

/** node_modules/<name>/… or node_modules/@scope/<name>/… → the package's directory. */
function packageDirOf(input: string): string | undefined {
  const match = /^((?:.*\/)?node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return match?.[1];
}

/** The license text of every package inlined in the bundle (their licenses ask copies to carry it). */
async function thirdPartyLicenses(inputs: string[]): Promise<string> {
  const dirs = [...new Set(inputs.flatMap((input) => packageDirOf(input) ?? []))].sort();
  const sections: string[] = [];
  for (const dir of dirs) {
    const manifest = JSON.parse(await readFile(join(root, dir, "package.json"), "utf8")) as {
      name: string;
      version: string;
      license?: string;
    };
    const file = (await readdir(join(root, dir))).sort().find((name) => /^licen[cs]e/i.test(name));
    const text = file ? (await readFile(join(root, dir, file), "utf8")).trim() : "(no license file)";
    sections.push(`${manifest.name}@${manifest.version} (${manifest.license ?? "unknown"})\n\n${text}\n`);
  }
  return `${sections.join(`\n${"-".repeat(72)}\n\n`)}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const outDir = resolve(process.argv[2] ?? join(root, "action", "dist"));
  const files = await buildAction(outDir);
  for (const file of files) console.log(`wrote ${join(outDir, file)}`);
}
