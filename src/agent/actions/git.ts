// The few git facts the CLI needs: this worktree's git dir, its hooks dir and commit ids.
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { UsageError } from "./errors.js";

const run = promisify(execFile);

async function git(cwd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run("git", args, { cwd });
    return stdout.trim();
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new UsageError(`git ${args[0]} failed in ${cwd}: ${stderr || (error as Error).message}`);
  }
}

/** The per-worktree git directory (for a linked worktree, `.git/worktrees/<name>`). */
export async function findGitDir(cwd: string): Promise<string> {
  return git(cwd, ["rev-parse", "--absolute-git-dir"]);
}

/** Where git looks for hooks (honours `core.hooksPath`). */
export async function findHooksDir(cwd: string): Promise<string> {
  return resolve(cwd, await git(cwd, ["rev-parse", "--git-path", "hooks"]));
}

/** Resolves any revision (`HEAD`, a branch, a short sha) to a full commit id. */
export async function resolveCommit(cwd: string, revision: string): Promise<string> {
  return git(cwd, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${revision}^{commit}`]).catch(
    () => {
      throw new UsageError(`"${revision}" is not a commit in this repository`);
    },
  );
}
