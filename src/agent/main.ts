// Entry of the `claim-hold` bin: the CLI's commands and `mcp`, composed here so the CLI and the MCP server never import each other.
import type { CommandSpec } from "./cli/command.js";
import { cliCommands, type MainOptions, runCommandLine } from "./cli/run-command-line.js";
import { mcpCommand } from "./mcp-command.js";

export const commands: readonly CommandSpec[] = [...cliCommands, mcpCommand];

/** Runs one `claim-hold` invocation and resolves with its exit code; never calls `process.exit`. */
export function main(argv: string[], options: MainOptions): Promise<number> {
  return runCommandLine(commands, argv, options);
}
