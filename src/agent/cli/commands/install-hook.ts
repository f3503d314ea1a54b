// `install-hook`: a git pre-push hook that lets only the current holder push (verify, then attest).
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "../../actions/errors.js";
import { findHooksDir } from "../../actions/git.js";
import { parseSubject } from "../../actions/subject.js";
import type { CommandSpec } from "../command.js";
import { stringFlag } from "../context.js";

const marker = "# claim-hold pre-push hook";

/** POSIX sh so it runs wherever git does; `node` from PATH, else the one that installed it. */
export function prePushHook(nodePath: string, binPath: string, issue: string | undefined): string {
  const issueArgs = issue ? ` --issue ${shellQuote(issue)}` : "";
  return `#!/bin/sh
${marker} (written by \`claim-hold install-hook\`; re-run it to update).
# Refuses the push unless this session still holds its claim, then attests every pushed commit.
NODE=$(command -v node 2>/dev/null || echo ${shellQuote(nodePath)})
CLI=${shellQuote(binPath)}
status=0
while read -r local_ref local_sha remote_ref remote_sha; do
  case "$local_sha" in
    *[!0]*) ;;
    *) continue ;; # a deleted ref: nothing to vouch for
  esac
  if ! "$NODE" "$CLI" verify${issueArgs} </dev/null; then
    echo "claim-hold: push refused: this session does not hold the claim (see \\\`claim-hold status\\\`)" >&2
    exit 1
  fi
  if ! "$NODE" "$CLI" attest${issueArgs} "$local_sha" </dev/null; then
    echo "claim-hold: push refused: could not attest $local_sha" >&2
    status=1
  fi
done
exit $status
`;
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export const installHookCommand: CommandSpec = {
  name: "install-hook",
  summary: "install a git pre-push hook that runs `verify` and `attest <sha>` for every push",
  arguments: [],
  options: {
    issue: {
      value: "<owner/repo#n>",
      description: "bake the lease choice into the hook (when the worktree may hold several leases)",
    },
    force: { description: "replace an existing pre-push hook that claim-hold did not write" },
  },
  async run(ctx) {
    const issue = stringFlag(ctx, "issue");
    if (issue) parseSubject(issue);
    const hooksDir = await findHooksDir(ctx.cwd);
    const path = join(hooksDir, "pre-push");
    const existing = await readFile(path, "utf8").catch(() => null);
    if (existing !== null && !existing.includes(marker) && ctx.flags.force !== true) {
      throw new UsageError(
        `${path} already exists and was not written by claim-hold; use --force to replace it`,
      );
    }
    await mkdir(hooksDir, { recursive: true });
    await writeFile(path, prePushHook(process.execPath, ctx.binPath, issue), { mode: 0o755 });
    await chmod(path, 0o755);
    ctx.out.result({ ok: true, command: "install-hook", path }, [`installed ${path}`]);
    return 0;
  },
};
