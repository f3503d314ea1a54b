// Declared work scopes (SPEC §4.2): which path globs of two claims can name the same file.
import picomatch from "picomatch";
import type { ClaimRecord } from "../domain/claim.js";
import { livenessOf } from "./liveness.js";

/** Brace alternatives expanded per glob before a group is widened to `*` (keeps 50 × 50 pairs cheap). */
const maxAlternatives = 32;

/**
 * Whether some path can match both globs — an approximation that errs towards "yes", because an
 * overlap is only ever a warning (SPEC §4.2) while a missed one lets two sessions edit the same file.
 *
 * Semantics are those of path globs (picomatch), not of `.gitignore`: `*.md` names the top-level
 * Markdown files only, `**∕*.md` names them at any depth. Dot files count (`*` matches `.env`).
 *
 * - Negated globs (`!src/gen/**`) exclude rather than declare files: they never intersect anything.
 * - `./a` is `a`; a trailing slash (`docs/`) and a literal path without any glob character whose
 *   last segment has no extension (`src/parser`) name that path and everything below it, since a
 *   scope entry may be a directory; `docs/a.md` names that file only.
 * - Braces are expanded (`src/{a,b}/**` is two globs); past 32 alternatives a group counts as `*`.
 * - The globs are compared segment by segment; `**` spans zero or more segments. Two segments
 *   intersect when they are equal, when one is literal and the other matches it (picomatch), or —
 *   both being patterns — when their literal prefixes and suffixes are compatible (one a prefix,
 *   resp. suffix, of the other). That last rule is where false positives live: `[ab]*.ts` and
 *   `c*.ts` are reported as intersecting though no name matches both.
 */
export function globsIntersect(a: string, b: string): boolean {
  const left = normalizeGlob(a);
  const right = normalizeGlob(b);
  if (left === null || right === null) return false;
  if (left === right) return true;
  const matchers = new Map<string, (name: string) => boolean>();
  for (const x of expandBraces(left)) {
    for (const y of expandBraces(right)) {
      if (segmentsIntersect(segmentsOf(x), segmentsOf(y), matchers)) return true;
    }
  }
  return false;
}

/**
 * The intersecting pairs of two scopes, as shown to agents: the glob itself when both declared it,
 * else `mine ∩ theirs`. Empty when the scopes are disjoint (or either is empty).
 */
export function scopeIntersections(mine: readonly string[], theirs: readonly string[]): string[] {
  const pairs: string[] = [];
  for (const a of mine) {
    for (const b of theirs) {
      if (!globsIntersect(a, b)) continue;
      const pair = a === b ? a : `${a} ∩ ${b}`;
      if (!pairs.includes(pair)) pairs.push(pair);
    }
  }
  return pairs;
}

export interface ScopeOverlap {
  /** `owner/repo#n` of the other claim. */
  subject: string;
  holder: ClaimRecord["actor"];
  /** The intersecting glob pairs (see `scopeIntersections`). */
  paths: string[];
}

/**
 * Other live agent claims (state active, heartbeat within ttl) of the same repository whose declared
 * scope intersects `scope`. `records` is the store's listing of the repository; `self` is skipped.
 */
export function liveScopeOverlaps(
  scope: readonly string[] | undefined,
  self: { repoId: number; issue: number },
  records: readonly ClaimRecord[],
  now: number,
): ScopeOverlap[] {
  if (!scope?.length) return [];
  const overlaps: ScopeOverlap[] = [];
  for (const record of records) {
    if (record.repoId !== self.repoId || record.issue === self.issue) continue;
    if (record.actor.kind !== "agent" || !record.scope?.length) continue;
    if (livenessOf(record, now) !== "live") continue;
    const paths = scopeIntersections(scope, record.scope);
    if (paths.length > 0) {
      overlaps.push({ subject: `${record.repo}#${record.issue}`, holder: record.actor, paths });
    }
  }
  return overlaps;
}

/** `null` for a negation (ignored); otherwise the glob without `./`, doubled or trailing slashes. */
function normalizeGlob(glob: string): string | null {
  let text = glob.trim();
  if (text.startsWith("!")) return null;
  while (text.startsWith("./")) text = text.slice(2);
  text = text.replace(/\/{2,}/g, "/");
  if (text.endsWith("/")) text = `${text}**`;
  return text === "" ? null : text;
}

function isPattern(text: string): boolean {
  return picomatch.scan(text).isGlob;
}

/**
 * Path segments. A literal path whose last segment has no extension (`src/parser`, `.github`) may be
 * a directory, so it also names everything below it (an optional trailing `**`).
 */
function segmentsOf(glob: string): string[] {
  const segments = glob.split("/").filter((s) => s !== "" && s !== ".");
  const last = segments.at(-1) ?? "";
  if (!isPattern(glob) && !/.\.[^.]/.test(last)) segments.push("**");
  return segments;
}

/** Does a path exist that both segment lists match? `**` spans zero or more segments. */
function segmentsIntersect(
  x: readonly string[],
  y: readonly string[],
  matchers: Map<string, (name: string) => boolean>,
): boolean {
  const memo = new Map<number, boolean>();
  const visit = (i: number, j: number): boolean => {
    const id = i * (y.length + 1) + j;
    const known = memo.get(id);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === x.length && j === y.length) result = true;
    else if (x[i] === "**") result = visit(i + 1, j) || (j < y.length && visit(i, j + 1));
    else if (y[j] === "**") result = visit(i, j + 1) || (i < x.length && visit(i + 1, j));
    else if (i === x.length || j === y.length) result = false;
    else result = namesIntersect(x[i]!, y[j]!, matchers) && visit(i + 1, j + 1);
    memo.set(id, result);
    return result;
  };
  return visit(0, 0);
}

/** Whether one path segment can match both single-segment patterns. */
function namesIntersect(p: string, q: string, matchers: Map<string, (name: string) => boolean>): boolean {
  if (p === q) return true;
  const pGlob = isPattern(p);
  const qGlob = isPattern(q);
  if (!pGlob && !qGlob) return false;
  if (!pGlob) return matcherOf(q, matchers)(p);
  if (!qGlob) return matcherOf(p, matchers)(q);
  const [pHead, pTail] = literalEnds(p);
  const [qHead, qTail] = literalEnds(q);
  const headsFit = pHead.startsWith(qHead) || qHead.startsWith(pHead);
  const tailsFit = pTail.endsWith(qTail) || qTail.endsWith(pTail);
  return headsFit && tailsFit;
}

function matcherOf(pattern: string, matchers: Map<string, (name: string) => boolean>) {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    matcher = picomatch(pattern, { dot: true });
    matchers.set(pattern, matcher);
  }
  return matcher;
}

const patternChars = /[*?[\]{}()!+@]/;

/** The literal text before the first and after the last pattern character. */
function literalEnds(pattern: string): [string, string] {
  const first = pattern.search(patternChars);
  let last = pattern.length - 1;
  while (last >= 0 && !patternChars.test(pattern[last]!)) last--;
  return [pattern.slice(0, Math.max(0, first)), pattern.slice(last + 1)];
}

/** `a/{b,c}/d` → `a/b/d`, `a/c/d` (nested groups too); beyond the limit a group becomes `*`. */
export function expandBraces(glob: string): string[] {
  const group = firstBraceGroup(glob);
  if (!group) return [glob];
  const { start, end, options } = group;
  const before = glob.slice(0, start);
  const after = glob.slice(end + 1);
  if (options.length < 2) return expandBraces(`${before}*${after}`);
  const expanded: string[] = [];
  for (const option of options) {
    for (const rest of expandBraces(`${before}${option}${after}`)) {
      expanded.push(rest);
      if (expanded.length > maxAlternatives) return expandBraces(`${before}*${after}`);
    }
  }
  return expanded;
}

/** The first top-level `{…}` holding a comma, split at its top-level commas. */
function firstBraceGroup(glob: string): { start: number; end: number; options: string[] } | null {
  for (let start = glob.indexOf("{"); start !== -1; start = glob.indexOf("{", start + 1)) {
    if (start > 0 && glob[start - 1] === "\\") continue;
    let depth = 0;
    let from = start + 1;
    const options: string[] = [];
    for (let i = start; i < glob.length; i++) {
      const char = glob[i];
      if (char === "\\") {
        i++;
        continue;
      }
      if (char === "{") depth++;
      else if (char === "}") depth--;
      if (depth === 1 && char === ",") {
        options.push(glob.slice(from, i));
        from = i + 1;
      }
      if (depth === 0) {
        options.push(glob.slice(from, i));
        // `{1..3}` ranges and `{a}` are not alternatives: they widen to `*` (an over-approximation).
        return { start, end: i, options: options.length > 1 ? options : [] };
      }
    }
    return null;
  }
  return null;
}
