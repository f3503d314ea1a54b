#!/usr/bin/env node
// claim-hold CLI shim: runs the compiled CLI when built, else the TypeScript source through tsx.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const binPath = fileURLToPath(import.meta.url);
const root = join(dirname(binPath), "..");
const compiled = join(root, "dist", "agent", "main.js");

async function load() {
  if (existsSync(compiled)) return import(pathToFileURL(compiled).href);
  // A git clone without a build: only there is the source (and tsx, a dev dependency) at hand.
  const tsx = await import("tsx/esm/api").catch(() => null);
  if (!tsx) {
    console.error(
      "claim-hold: dist/ is not built and tsx is not installed; run `npm install && npm run build`",
    );
    process.exit(1);
  }
  return tsx.tsImport(pathToFileURL(join(root, "src", "agent", "main.ts")).href, import.meta.url);
}

const { main } = await load();
const code = await main(process.argv.slice(2), { binPath });
// Exit explicitly (idle HTTP keep-alive sockets must not hold the process), once stdout is flushed.
process.stdout.write("", () => process.exit(code));
