// The issues a pull request's body closes, read the way GitHub reads closing keywords; pure.

/** One closing reference as written: `repo` (owner/name) absent for a bare `#n`. */
export interface ClosingKeywordReference {
  repo?: string;
  number: number;
}

const keyword = "(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)";
const name = String.raw`[A-Za-z0-9][\w.-]*\/[\w.-]+`;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Closing references in a body, in order, without repeats: a keyword (close, closes, closed, fix,
 * fixes, fixed, resolve, resolves, resolved; any case; an optional colon) followed by `#n`,
 * `owner/repo#n` or an issue URL on one of `webBases` (`https://github.com`, a GHES host). Each
 * reference needs its own keyword (`Fixes #1, #2` closes #1 only); code spans and fenced blocks are
 * not read; a URL to a pull request closes nothing.
 */
export function parseClosingKeywords(body: string, webBases: string[]): ClosingKeywordReference[] {
  const text = body.replace(/```[\s\S]*?```|~~~[\s\S]*?~~~/g, " ").replace(/`[^`\n]*`/g, " ");
  const hosts = webBases.map((base) => escapeRegExp(base.replace(/\/+$/, ""))).join("|");
  const pattern = new RegExp(
    String.raw`(?<![\w/])${keyword}(?::[ \t]*|[ \t]+)(?:(${name})?#(\d{1,9})|(?:${hosts})\/(${name})\/issues\/(\d{1,9}))(?![\w/])`,
    "gi",
  );
  const found: ClosingKeywordReference[] = [];
  for (const match of text.matchAll(pattern)) {
    const repo = match[1] ?? match[3];
    const number = Number(match[2] ?? match[4]);
    if (number <= 0) continue;
    const same = (r: ClosingKeywordReference) =>
      r.number === number && (r.repo ?? "").toLowerCase() === (repo ?? "").toLowerCase();
    if (!found.some(same)) found.push(repo ? { repo, number } : { number });
  }
  return found;
}

/** Issue numbers of `repo` a body closes (references to other repositories are theirs). */
export function closedIssuesOf(body: string | null | undefined, repo: string, webBases: string[]): number[] {
  const own = repo.toLowerCase();
  return parseClosingKeywords(body ?? "", webBases)
    .filter((r) => r.repo === undefined || r.repo.toLowerCase() === own)
    .map((r) => r.number);
}
