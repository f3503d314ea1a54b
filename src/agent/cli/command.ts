// The shape of one CLI command: its arguments and options (help is generated from them), notes, and the function that runs it.
import type { CommandContext } from "./context.js";

export interface OptionDef {
  /** Takes a value, named like this in help (`<name>`); without it the option is a boolean switch. */
  value?: string;
  description: string;
  /** May be given more than once; the flag's value is then the list. */
  repeatable?: boolean;
  short?: string;
}

/** Options by their long name (`ignore-blockers`), which is also their key in `CommandContext.flags`. */
export type OptionDefs = Record<string, OptionDef>;

export interface ArgumentDef {
  name: string;
  description: string;
  required: boolean;
}

export interface CommandSpec {
  name: string;
  summary: string;
  /** Positional arguments, in order. */
  arguments: ArgumentDef[];
  options: OptionDefs;
  /** Accepts `-- <cmd…>`: what the command after `--` is for. */
  rest?: { required: boolean; description: string };
  /** Help text after the options: behaviour and the exit codes that matter. */
  notes?: string[];
  /** Needs the agent account's GitHub token (resolved before `run`, possibly through `gh auth token`). */
  needsGithubToken?: boolean;
  /** Returns the exit code. */
  run(ctx: CommandContext): Promise<number>;
}

/** `--issue`: the lease commands' choice of lease. */
export const issueOption: OptionDefs = {
  issue: {
    value: "<owner/repo#n>",
    description: "which lease, when this worktree holds more than one",
  },
};

/** `--repo`: the repository, when it is not the one of this clone's git remote. */
export const repoOption: OptionDefs = {
  repo: {
    value: "<owner/repo>",
    description: "the repository (default: from this clone's git remote, origin)",
  },
};

export const showTokenOption: OptionDefs = {
  "show-token": { description: "include the lease token in --json output" },
};
