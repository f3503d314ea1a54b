// The shape of one CLI command: its options, its help text and the function that runs it.
import type { ParseArgsConfig } from "node:util";
import type { CommandContext } from "./context.js";

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

export interface CommandSpec {
  name: string;
  summary: string;
  /** Usage line(s) after `claim-hold `. */
  usage: string;
  /** Extra lines of help: what the options mean, the exit codes that matter. */
  details?: string[];
  options: OptionSpec;
  positionals: { min: number; max: number };
  /** Accepts `-- <cmd…>`. */
  rest?: boolean;
  /** Returns the exit code. */
  run(ctx: CommandContext): Promise<number>;
}
