// Entry of the `claim-hold` bin: the CLI's commands and `mcp`, composed here so the CLI and the MCP server never
// import each other. Run directly (`npx tsx src/agent/main.ts …`, `node dist/agent/main.js …`) it is the CLI itself.
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CommandSpec } from "./cli/command.js";
import { cliCommands, type MainOptions, runCommandLine } from "./cli/run-command-line.js";
import { mcpCommand } from "./mcp-command.js";

export const commands: readonly CommandSpec[] = [...cliCommands, mcpCommand];

/** Runs one `claim-hold` invocation and resolves with its exit code; never calls `process.exit`. */
export function main(argv: string[], options: MainOptions): Promise<number> {
  return runCommandLine(commands, argv, options);
}

/**
 * True when this module is the process's entry script, not imported by `bin/claim-hold.js`. A bundle that
 * inlines this module (the Action's CLI) has its own entry that calls `main`: its file is not agent/main.
 */
function isEntryScript(): boolean {
  const entry = process.argv[1];
  const self = fileURLToPath(import.meta.url);
  if (!entry || !/[\\/]agent[\\/]main\.[cm]?[jt]s$/.test(self)) return false;
  try {
    return realpathSync(entry) === realpathSync(self);
  } catch {
    return false;
  }
}

if (isEntryScript()) {
  // src/agent/main.ts and dist/agent/main.js both sit two levels below the package root.
  const binPath = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "claim-hold.js");
  const code = await main(process.argv.slice(2), { binPath });
  process.stdout.write("", () => process.exit(code));
}
