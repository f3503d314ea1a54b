// Which repository and issue a command is about: `owner/repo#12`, or `12` / `#12` with the repository from
// `--repo` or, like `gh`, from this clone's git remote.
import { UsageError } from "../actions/errors.js";
import { repoOfClone } from "../actions/git-remote.js";
import { parseRepo, parseSubject, type SubjectRef } from "../actions/subject.js";
import { type CommandContext, stringFlag } from "./context.js";

const bareIssue = /^#?(\d{1,9})$/;

/** The repository of `--repo`, else of this clone's remote; a usage error when there is neither. */
async function defaultRepo(ctx: CommandContext): Promise<string> {
  const flag = stringFlag(ctx, "repo");
  if (flag !== undefined) return parseRepo(flag);
  const remote = await repoOfClone(ctx.cwd);
  if (remote) return remote.repo;
  throw new UsageError(
    "no repository given: pass owner/repo (or --repo owner/repo), or run inside a clone whose origin remote is on GitHub",
  );
}

function checkAgreesWithFlag(ctx: CommandContext, repo: string): void {
  const flag = stringFlag(ctx, "repo");
  if (flag !== undefined && parseRepo(flag).toLowerCase() !== repo.toLowerCase()) {
    throw new UsageError(`--repo ${flag} disagrees with ${repo}; give the repository once`);
  }
}

/** `owner/repo#12` as given, or issue `12` / `#12` of the default repository. */
export async function resolveSubject(ctx: CommandContext, text: string | undefined): Promise<SubjectRef> {
  const bare = bareIssue.exec(text?.trim() ?? "");
  if (bare?.[1]) {
    const issue = Number(bare[1]);
    if (issue <= 0) throw new UsageError(`expected an issue number above 0, got "${text}"`);
    return { repo: await defaultRepo(ctx), issue };
  }
  const subject = parseSubject(text ?? "");
  checkAgreesWithFlag(ctx, subject.repo);
  return subject;
}

/** `owner/repo` as given, else the default repository. */
export async function resolveRepo(ctx: CommandContext, text: string | undefined): Promise<string> {
  if (text === undefined) return defaultRepo(ctx);
  const repo = parseRepo(text);
  checkAgreesWithFlag(ctx, repo);
  return repo;
}
