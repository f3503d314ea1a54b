// The repository of this clone, read from its git remote the way `gh` does: upstream's, github's or origin's URL (https or ssh, any host).
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface RemoteRepo {
  /** `github.com`, or a GitHub Enterprise host. */
  host: string;
  /** `owner/name`. */
  repo: string;
}

const namePart = "[A-Za-z0-9_.-]+";
const ownerAndName = `(${namePart})/(${namePart}?)(?:\\.git)?/?`;
/** `https://host[:port]/owner/name(.git)`, `ssh://[user@]host[:port]/owner/name(.git)`, `git://…`. */
const urlForm = new RegExp(`^(?:https?|ssh|git|git\\+ssh)://(?:[^@/]+@)?([^/:]+)(?::\\d+)?/${ownerAndName}$`);
/** scp-like `[user@]host:owner/name(.git)`. */
const scpForm = new RegExp(`^(?:[^@/]+@)?([^/:]+):${ownerAndName}$`);

/** The host and `owner/name` of a git remote URL, or undefined when it names no repository of a GitHub host. */
export function repoFromRemoteUrl(url: string): RemoteRepo | undefined {
  const text = url.trim();
  const match = urlForm.exec(text) ?? scpForm.exec(text);
  if (!match?.[1] || !match[2] || !match[3]) return undefined;
  const name = match[3].replace(/\.git$/, "");
  if (!name || name === "." || name === "..") return undefined;
  return { host: match[1].toLowerCase(), repo: `${match[2]}/${name}` };
}

/**
 * The remote to read, in gh's order: `upstream` (a fork's clone: the issues live in the repository it
 * was forked from), `github`, `origin`, else the only remote there is.
 */
export function chooseRemote(remotes: readonly string[]): string | undefined {
  const preferred = ["upstream", "github", "origin"].find((name) => remotes.includes(name));
  return preferred ?? (remotes.length === 1 ? remotes[0] : undefined);
}

/** The repository of the clone at `cwd`, or undefined (not a clone, no usable remote, not a GitHub URL). */
export async function repoOfClone(cwd: string): Promise<RemoteRepo | undefined> {
  const git = (args: string[]) =>
    run("git", args, { cwd, timeout: 5_000 }).then(
      ({ stdout }) => stdout.trim(),
      () => "",
    );
  const remote = chooseRemote((await git(["remote"])).split("\n").filter(Boolean));
  if (!remote) return undefined;
  return repoFromRemoteUrl(await git(["remote", "get-url", remote]));
}
