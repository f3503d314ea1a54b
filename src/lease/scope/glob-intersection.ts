// Whether two scope globs can name the same file (docs/agents.md#declared-scope), and what one scope glob may hold.
import { automataIntersect, automatonOf, type Budget, type Nfa } from "./glob-automaton.js";
import { alternativesIn, type GlobNode, isWildcard, parseGlob, wildcardsIn } from "./parse-glob.js";

/**
 * What one scope glob may hold, checked at the API edge by `scopeGlobProblem`. The overlap test
 * costs O(n·m) in the glob lengths whatever a glob holds; these keep scopes to what a person writes.
 */
export const scopeGlobLimits = { wildcards: 32, alternatives: 64 } as const;

/** Brace alternatives `expandBraces` lists before it widens a group to `*`. */
const maxAlternatives = 32;

/**
 * Pairs of automaton states one `scopeIntersections` or `liveScopeOverlaps` call may visit, a few
 * milliseconds' work. Two typical globs take a few dozen, two hostile 200-character ones up to
 * ~40 000, so 50 × 50 hostile pairs would hold the event loop for seconds: past the budget, pairs
 * are compared by their literal prefixes only (`src/a*` and `docs/*` do not meet), erring towards "yes".
 */
export const searchBudget = 300_000;

/**
 * Longer globs are not compared but reported as intersecting: the API caps a glob at 200
 * characters, so only a record written by something else gets here, and the test stays cheap.
 */
const maxComparedLength = 256;

/**
 * Whether some path can match both globs. Decided exactly for `*`, `?`, `**`, classes and braces
 * (a reachability search over the pair of automata, O(n·m) in the glob lengths, no regex run on
 * either glob); where it approximates, it errs towards "yes", because an overlap is only ever a
 * warning (docs/reference/http-api.md#post-apiv1claims--claim-re-claim-or-take-over)
 * while a missed one lets two sessions edit the same file.
 *
 * Semantics are those of path globs (picomatch), not of `.gitignore`: `*.md` names the top-level
 * Markdown files only, `**∕*.md` names them at any depth. Dot files count (`*` matches `.env`).
 *
 * - Negated globs (`!src/gen/**`) exclude rather than declare files: they never intersect anything.
 * - `./a` is `a`; a trailing slash (`docs/`) and a literal path without any glob character whose
 *   last segment has no extension (`src/parser`) name that path and everything below it, since a
 *   scope entry may be a directory; `docs/a.md` names that file only.
 * - `*`, `?` and `[…]` stay within one segment; `**` as a whole segment spans zero or more segments
 *   (elsewhere it is `*`). Braces are alternatives (`src/{a,b}/**`), nested ones too.
 * - Approximations (all towards "yes"): `[!…]` is any one character (picomatch reads the `!`
 *   literally, shells as a negation); extglobs and `(…)` groups, `{a}` and `{1..3}` are `*`
 *   (across `/` when they hold one); a `**` next to a brace is a whole segment.
 */
export function globsIntersect(a: string, b: string): boolean {
  return compiledIntersect(compileGlob(a), compileGlob(b));
}

/**
 * Why a scope glob is refused at the API edge, as a sentence for the 422, or `null` when it is
 * within `scopeGlobLimits`. Linear in the glob's length.
 */
export function scopeGlobProblem(glob: string): string | null {
  if (glob.length > maxComparedLength) return `must be at most ${maxComparedLength} characters`;
  const nodes = parseGlob(glob);
  if (wildcardsIn(nodes) > scopeGlobLimits.wildcards) {
    return `may hold at most ${scopeGlobLimits.wildcards} wildcards (*, ?, **, [...])`;
  }
  if (alternativesIn(nodes) > scopeGlobLimits.alternatives) {
    return `may expand to at most ${scopeGlobLimits.alternatives} alternatives with braces`;
  }
  return null;
}

/**
 * `a/{b,c}/d` → `a/b/d`, `a/c/d` (nested groups too); past 32 alternatives a group becomes `*`.
 * For listing only: `globsIntersect` decides on the braces themselves, however many they are.
 */
export function expandBraces(glob: string): string[] {
  return expansionsOf(parseGlob(glob));
}

function expansionsOf(nodes: readonly GlobNode[]): string[] {
  let expanded = [""];
  for (const node of nodes) {
    if (node.kind === "alt") {
      const options = node.options.flatMap(expansionsOf);
      expanded =
        expanded.length * options.length > maxAlternatives
          ? expanded.map((head) => `${head}*`)
          : expanded.flatMap((head) => options.map((option) => head + option));
    } else {
      expanded = expanded.map((head) => head + node.text);
    }
  }
  return expanded;
}

/**
 * A normalised glob and its automaton (`null` for a glob too long to compare), and the literal text
 * every path it names starts with (up to the first wildcard, without a trailing `/`).
 */
export interface CompiledGlob {
  text: string;
  nfa: Nfa | null;
  prefix: string;
}

/** `null` for a glob that names no file (a negation, or empty). */
export function compileGlob(glob: string): CompiledGlob | null {
  const text = normalizeGlob(glob);
  if (text === null) return null;
  if (text.length > maxComparedLength) return { text, nfa: null, prefix: "" };
  let nodes = parseGlob(text);
  const last = text.slice(text.lastIndexOf("/") + 1);
  if (!nodes.some(isWildcard) && !/.\.[^.]/.test(last)) nodes = parseGlob(`${text}/**`);
  let prefix = "";
  for (const node of nodes) {
    if (isWildcard(node) || node.kind !== "char") break;
    prefix += String.fromCharCode(node.set[0]!);
  }
  return { text, nfa: automatonOf(nodes), prefix: prefix.replace(/\/$/, "") };
}

export function compiledIntersect(
  x: CompiledGlob | null,
  y: CompiledGlob | null,
  budget: Budget = { states: Number.POSITIVE_INFINITY },
): boolean {
  if (x === null || y === null) return false;
  if (x.text === y.text || x.nfa === null || y.nfa === null) return true;
  return (
    automataIntersect(x.nfa, y.nfa, budget) ??
    (x.prefix.startsWith(y.prefix) || y.prefix.startsWith(x.prefix))
  );
}

/**
 * `null` for a negation (ignored); otherwise the glob without `./`, `.` segments, doubled or
 * trailing slashes (a trailing slash names the directory: `docs/` is `docs/**`). `.` is the root.
 */
function normalizeGlob(glob: string): string | null {
  let text = glob.trim();
  if (text === "" || text.startsWith("!")) return null;
  if (text.endsWith("/")) text = `${text}**`;
  const segments = text.split("/").filter((s) => s !== "" && s !== ".");
  return segments.length === 0 ? "**" : segments.join("/");
}
