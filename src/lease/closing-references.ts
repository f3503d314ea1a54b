// Parses a PR body's closing keywords (`closes #7`, `Fixes: owner/repo#7`) into issue numbers of the same repository; pure.

const keyword = String.raw`(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)`;
const reference = new RegExp(
  String.raw`(?<![\w/])${keyword}:?[ \t]+(?:([A-Za-z0-9][\w.-]*\/[\w.-]+))?#(\d{1,9})\b`,
  "gi",
);

/**
 * The issue numbers the body closes, in order of appearance, without duplicates. Only references
 * to `repo` itself count (`#7` or `owner/name#7`, case-insensitive); another repository's issue
 * is not a subject of this PR's check. Code spans and fenced blocks are ignored, as GitHub does.
 */
export function parseClosingReferences(body: string | null | undefined, repo: string): number[] {
  if (!body) return [];
  const text = body.replace(/```[\s\S]*?```|~~~[\s\S]*?~~~/g, " ").replace(/`[^`\n]*`/g, " ");
  const found: number[] = [];
  for (const match of text.matchAll(reference)) {
    const target = match[1];
    if (target && target.toLowerCase() !== repo.toLowerCase()) continue;
    const issue = Number(match[2]);
    if (issue > 0 && !found.includes(issue)) found.push(issue);
  }
  return found.slice(0, 50);
}
