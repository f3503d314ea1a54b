// Which issues of its own repository a Gitea pull request closes once merged, found as Gitea finds them (modules/references), pure.
//
// Gitea closes an issue when a closing keyword stands right before a reference to it: in the pull
// request's description, and in the messages of the commits the merge brings to the default branch.
// A keyword counts when the text before the reference ends with it, an optional colon and one space
// (`closes #12`, `Fixes: #12`, `(resolved #12)`), case-insensitive. Gitea's default keywords are
// below (`[repository.pull-request] CLOSE_KEYWORDS` changes them; an instance that does is not
// followed here). References to other repositories are not read: the fence on Gitea covers the
// pull request's own repository.

/** Gitea's default `CLOSE_KEYWORDS`. */
export const giteaCloseKeywords = [
  "close",
  "closes",
  "closed",
  "fix",
  "fixes",
  "fixed",
  "resolve",
  "resolves",
  "resolved",
] as const;

/** Gitea's default `REOPEN_KEYWORDS`: they share the keyword window. */
const reopenKeywords = ["reopen", "reopens", "reopened"];

/** Gitea looks for a keyword only this far before a reference: the longest keyword and 4 bytes. */
const keywordWindow = Math.max(...[...giteaCloseKeywords, ...reopenKeywords].map((k) => k.length)) + 4;
const closeKeyword = new RegExp(`(?:\\s|^|\\(|\\[)(?:${giteaCloseKeywords.join("|")}):? $`, "i");

/** What may follow a reference: Gitea's trailing group, as a look-ahead so adjacent references all match. */
const after = `(?=\\s|$|\\)|\\]|'|"|[:;,.?!]\\s|[:;,.?!]$)`;
/** `#12` (or `!12`, interchangeable without an external tracker). */
const localReference = new RegExp(`(?:\\s|^|\\(|\\[|'|")([#!])([0-9]+)${after}`, "g");
/** `owner/repo#12`. */
const crossReference = new RegExp(
  `(?:\\s|^|\\(|\\[)([0-9a-zA-Z-_.]+)/([0-9a-zA-Z-_.]+)[#!]([0-9]+)${after}`,
  "g",
);

export interface ClosingSources {
  /** The pull request's description (markdown: code spans and blocks are not read). */
  body: string | null | undefined;
  /** Its commits' messages (plain text). */
  commitMessages: readonly string[];
}

/**
 * The issue numbers of `repo` (`owner/name`) that the pull request closes, in the order found
 * (description first, then each commit), each once. `webUrl`: the instance's root URL, so
 * `<webUrl>/owner/name/issues/12` counts as `owner/name#12` as on Gitea.
 */
export function giteaClosingIssues(sources: ClosingSources, repo: string, webUrl?: string): number[] {
  const found = new Set<number>();
  const texts = [stripMarkdownCode(sources.body ?? ""), ...sources.commitMessages];
  for (const raw of texts) {
    for (const issue of closingReferencesIn(shortenIssueUrls(raw, webUrl), repo)) found.add(issue);
  }
  return [...found];
}

/** The issues one text closes (keyword before the reference), own repository only. */
export function closingReferencesIn(text: string, repo: string): number[] {
  const issues: number[] = [];
  const [owner, name] = repo.toLowerCase().split("/");
  for (const match of text.matchAll(localReference)) {
    const start = match.index + match[0].length - match[1]!.length - match[2]!.length;
    if (closes(text, start)) issues.push(Number(match[2]));
  }
  for (const match of text.matchAll(crossReference)) {
    if (match[1]!.toLowerCase() !== owner || match[2]!.toLowerCase() !== name) continue;
    const start = match.index + match[0].length - `${match[1]}/${match[2]}#${match[3]}`.length;
    if (closes(text, start)) issues.push(Number(match[3]));
  }
  return issues;
}

/** Whether the text right before a reference ends with a closing keyword (Gitea's window and pattern). */
function closes(text: string, start: number): boolean {
  return closeKeyword.test(text.slice(Math.max(0, start - keywordWindow), start));
}

/** `<webUrl>/owner/repo/issues/12` → `owner/repo#12` (Gitea rewrites its own links so). */
function shortenIssueUrls(text: string, webUrl: string | undefined): string {
  if (!webUrl) return text;
  const root = webUrl.replace(/\/+$/, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const link = new RegExp(
    `(\\s|^|\\(|\\[)${root}/([0-9a-zA-Z-_.]+/[0-9a-zA-Z-_.]+)/(issues|pulls)/([0-9]+)${after}`,
    "g",
  );
  return text.replace(
    link,
    (_all, lead: string, path: string, kind: string, n: string) =>
      `${lead}${path}${kind === "pulls" ? "!" : "#"}${n}`,
  );
}

/** Gitea reads a description with its markdown stripped: text in code is never a reference. */
function stripMarkdownCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}
