// Parses the `/reclaim` command (docs/reference/github-surfaces.md#reclaim) out of an issue comment body; total, never throws.

export interface ReclaimCommand {
  kind: "reclaim";
  /** `/reclaim release`: nobody is assigned, the subject goes back to the queue. */
  release: boolean;
}

const blank = /^[ \t]*$/;
const quote = /^ {0,3}>/;
const fenceOpen = /^ {0,3}(`{3,}(?!.*`)|~{3,})/;
const indentedCode = /^(?: {0,3}\t| {4})/;
const command = /^ {0,3}\/reclaim(?:[ \t]+([\s\S]*))?$/i;
const releaseWord = /^release\b/i;

/**
 * The command on the first non-empty line that is not in a quote or a code block, or null.
 *
 * Decisions where the spec is silent:
 * - Quoted and code lines are skipped, not disqualifying: a "Quote reply" puts the quote first and
 *   the commenter's own first line after it. A line right after a quote line is the quote's lazy
 *   continuation (GitHub renders it inside the quote), so it does not count either.
 * - The command word and `release` are case-insensitive (phone keyboards capitalise).
 * - `/reclaim` must stand alone on its line or be followed by `release`; text after `release` is
 *   ignored (`/reclaim release, back to the queue`). Any other word after `/reclaim` makes the line
 *   no command at all, so a typo of `release` can never assign the commenter instead.
 */
export function parseReclaimCommand(body: unknown): ReclaimCommand | null {
  const line = firstCommandLine(body);
  if (line === null) return null;
  const match = command.exec(line);
  if (!match) return null;
  const rest = match[1]?.trim() ?? "";
  if (rest === "") return { kind: "reclaim", release: false };
  return releaseWord.test(rest) ? { kind: "reclaim", release: true } : null;
}

/** The first non-empty line of a comment that is not in a quote or a code block (where a command is read), or null. */
export function firstCommandLine(body: unknown): string | null {
  if (typeof body !== "string") return null;
  let fence: { char: string; length: number } | null = null;
  let inQuote = false;
  for (const line of body.split(/\r\n|\r|\n/)) {
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line)?.[1];
      if (close && close[0] === fence.char && close.length >= fence.length) fence = null;
      continue;
    }
    if (blank.test(line)) {
      inQuote = false;
      continue;
    }
    if (quote.test(line)) {
      inQuote = true;
      continue;
    }
    const open = fenceOpen.exec(line)?.[1];
    if (open) {
      fence = { char: open[0]!, length: open.length };
      inQuote = false;
      continue;
    }
    if (inQuote || indentedCode.test(line)) continue;
    return line;
  }
  return null;
}
