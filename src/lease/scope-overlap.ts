// Declared work scopes (SPEC §4.2): which path globs of two claims can name the same file.
import type { ClaimRecord } from "../domain/claim.js";
import { livenessOf } from "./liveness.js";

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
const searchBudget = 300_000;

/** What is left of a search budget, shared by the comparisons of one call. */
interface Budget {
  states: number;
}

/**
 * Longer globs are not compared but reported as intersecting: the API caps a glob at 200
 * characters, so only a record written by something else gets here, and the test stays cheap.
 */
const maxComparedLength = 256;

/**
 * Whether some path can match both globs. Decided exactly for `*`, `?`, `**`, classes and braces
 * (a reachability search over the pair of automata, O(n·m) in the glob lengths, no regex run on
 * either glob); where it approximates, it errs towards "yes", because an overlap is only ever a
 * warning (SPEC §4.2) while a missed one lets two sessions edit the same file.
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
 * The intersecting pairs of two scopes, as shown to agents: the glob itself when both declared it,
 * else `mine ∩ theirs`. Empty when the scopes are disjoint (or either is empty). Within one
 * `searchBudget`: past it, the remaining pairs are compared by their literal prefixes.
 */
export function scopeIntersections(mine: readonly string[], theirs: readonly string[]): string[] {
  return intersectionsOf(mine, mine.map(compileGlob), theirs, { states: searchBudget });
}

function intersectionsOf(
  mine: readonly string[],
  compiled: readonly (CompiledGlob | null)[],
  theirs: readonly string[],
  budget: Budget,
): string[] {
  const right = theirs.map(compileGlob);
  const pairs = new Set<string>();
  mine.forEach((a, i) => {
    theirs.forEach((b, j) => {
      if (compiledIntersect(compiled[i]!, right[j]!, budget)) pairs.add(a === b ? a : `${a} ∩ ${b}`);
    });
  });
  return [...pairs];
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
  const compiled = scope.map(compileGlob);
  const budget = { states: searchBudget };
  const overlaps: ScopeOverlap[] = [];
  for (const record of records) {
    if (record.repoId !== self.repoId || record.issue === self.issue) continue;
    if (record.actor.kind !== "agent" || !record.scope?.length) continue;
    if (livenessOf(record, now) !== "live") continue;
    const paths = intersectionsOf(scope, compiled, record.scope, budget);
    if (paths.length > 0) {
      overlaps.push({ subject: `${record.repo}#${record.issue}`, holder: record.actor, paths });
    }
  }
  return overlaps;
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

// ---- Globs as automata -------------------------------------------------------------------------

/** A set of UTF-16 code units: sorted, disjoint, inclusive `[low, high]` pairs. */
type CharSet = readonly number[];

const slashCode = 0x2f;
const lastCode = 0xffff;
const anyChar: CharSet = [0, lastCode];
const notSlash: CharSet = [0, slashCode - 1, slashCode + 1, lastCode];
/** Every literal `/` uses this very set, so `**` can find the separators next to it by identity. */
const slash: CharSet = [slashCode, slashCode];

type GlobNode =
  /** One character: a literal (`wildcard: false`), `?` or a class. */
  | { kind: "char"; set: CharSet; wildcard: boolean; text: string }
  /** Any run of characters within one segment (`*`). */
  | { kind: "star"; text: string }
  /** Any run of characters, `/` included: the approximation for extglobs and the like. */
  | { kind: "any"; text: string }
  /** `**` as a whole segment: zero or more segments. */
  | { kind: "globstar"; text: string }
  | { kind: "alt"; options: GlobNode[][]; text: string };

/**
 * A normalised glob and its automaton (`null` for a glob too long to compare), and the literal text
 * every path it names starts with (up to the first wildcard, without a trailing `/`).
 */
interface CompiledGlob {
  text: string;
  nfa: Nfa | null;
  prefix: string;
}

/**
 * A Thompson-style automaton, about one state per glob character: state 0 accepts; each state has
 * at most one character edge (`sets[s]` to `next[s]`) and any number of empty moves (`eps[s]`).
 */
interface DraftNfa {
  start: number;
  sets: (CharSet | null)[];
  next: number[];
  eps: number[][];
  /** The states that choose between brace alternatives. */
  forks: Set<number>;
}

/** The same automaton packed for the search, its character sets numbered once each. */
interface Nfa {
  start: number;
  /** Per state, the index in `sets` of its character edge's set, or -1. */
  setOf: Int32Array;
  next: Int32Array;
  /** The empty moves of state `s` are `epsTo[epsFrom[s]]` up to `epsTo[epsFrom[s + 1] - 1]`. */
  epsFrom: Int32Array;
  epsTo: Int32Array;
  sets: CharSet[];
}

/** `null` for a glob that names no file (a negation, or empty). */
function compileGlob(glob: string): CompiledGlob | null {
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

function compiledIntersect(
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

function isWildcard(node: GlobNode): boolean {
  return node.kind !== "char" || node.wildcard;
}

function wildcardsIn(nodes: readonly GlobNode[]): number {
  let count = 0;
  for (const node of nodes) {
    if (node.kind === "alt") for (const option of node.options) count += wildcardsIn(option);
    else if (isWildcard(node)) count++;
  }
  return count;
}

/** How many globs the braces expand to (capped, so that nesting cannot overflow). */
function alternativesIn(nodes: readonly GlobNode[]): number {
  let count = 1;
  for (const node of nodes) {
    if (node.kind !== "alt") continue;
    let options = 0;
    for (const option of node.options) options += alternativesIn(option);
    count = Math.min(count * options, 2 ** 31);
  }
  return count;
}

/**
 * Is there a path both automata accept? A search over pairs of states, each pair visited once:
 * O(states(a) · states(b)), and the states are linear in the glob's length. `null` once `budget`
 * (pairs of states, shared with other searches) is spent.
 */
function automataIntersect(a: Nfa, b: Nfa, budget: Budget): boolean | null {
  if (budget.states <= 0) return null;
  const width = b.next.length;
  const seen = new Uint8Array(a.next.length * width);
  const pending = new Int32Array(a.next.length * width);
  // Whether set i of `a` meets set j of `b`: 0 not asked yet, 1 no, 2 yes.
  const meets = new Uint8Array(a.sets.length * b.sets.length);
  let top = 0;
  const reach = (id: number) => {
    if (seen[id] === 0) {
      seen[id] = 1;
      pending[top++] = id;
    }
  };
  reach(a.start * width + b.start);
  while (top > 0) {
    const id = pending[--top]!;
    if (id === 0) return true; // both in their accepting state 0
    if (--budget.states < 0) return null;
    const p = Math.floor(id / width);
    const q = id - p * width;
    for (let k = a.epsFrom[p]!; k < a.epsFrom[p + 1]!; k++) reach(a.epsTo[k]! * width + q);
    for (let k = b.epsFrom[q]!; k < b.epsFrom[q + 1]!; k++) reach(p * width + b.epsTo[k]!);
    const x = a.setOf[p]!;
    const y = b.setOf[q]!;
    if (x < 0 || y < 0) continue;
    const pair = x * b.sets.length + y;
    if (meets[pair] === 0) meets[pair] = setsOverlap(a.sets[x]!, b.sets[y]!) ? 2 : 1;
    if (meets[pair] === 2) reach(a.next[p]! * width + b.next[q]!);
  }
  return false;
}

function setsOverlap(x: CharSet, y: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    if (x[i + 1]! < y[j]!) i += 2;
    else if (y[j + 1]! < x[i]!) j += 2;
    else return true;
  }
  return false;
}

/** The automaton of a parsed glob, built back to front so every node knows what follows it. */
function automatonOf(nodes: readonly GlobNode[]): Nfa {
  const nfa: DraftNfa = { start: 0, sets: [null], next: [-1], eps: [[]], forks: new Set() };
  const globstars: { entry: number; after: number }[] = [];
  const add = (set: CharSet | null, next: number, eps: number[]): number => {
    nfa.sets.push(set);
    nfa.next.push(next);
    nfa.eps.push(eps);
    return nfa.sets.length - 1;
  };
  const loop = (set: CharSet, after: number) => add(set, nfa.sets.length, [after]);
  const sequence = (list: readonly GlobNode[], after: number): number => {
    let entry = after;
    for (let k = list.length - 1; k >= 0; k--) entry = state(list[k]!, entry);
    return entry;
  };
  const state = (node: GlobNode, after: number): number => {
    switch (node.kind) {
      case "char":
        return add(node.set, after, []);
      case "star":
        return loop(notSlash, after);
      case "any":
        return loop(anyChar, after);
      case "globstar": {
        const entry = add(null, -1, [loop(anyChar, after)]);
        globstars.push({ entry, after });
        return entry;
      }
      case "alt": {
        const fork = add(
          null,
          -1,
          node.options.map((option) => sequence(option, after)),
        );
        nfa.forks.add(fork);
        return fork;
      }
    }
  };
  nfa.start = sequence(nodes, 0);
  normaliseSeparators(nfa, globstars);
  return packed(nfa);
}

function packed(draft: DraftNfa): Nfa {
  const size = draft.sets.length;
  const sets: CharSet[] = [];
  const setIds = new Map<number | string, number>();
  const setOf = new Int32Array(size).fill(-1);
  const epsFrom = new Int32Array(size + 1);
  const epsTo: number[] = [];
  for (let s = 0; s < size; s++) {
    const set = draft.sets[s];
    if (set) {
      const key = set.length === 2 && set[0] === set[1] ? set[0]! : set.join();
      if (!setIds.has(key)) setIds.set(key, sets.push(set) - 1);
      setOf[s] = setIds.get(key)!;
    }
    epsFrom[s] = epsTo.length;
    epsTo.push(...draft.eps[s]!);
  }
  epsFrom[size] = epsTo.length;
  return {
    start: draft.start,
    setOf,
    next: Int32Array.from(draft.next),
    epsFrom,
    epsTo: Int32Array.from(epsTo),
    sets,
  };
}

/**
 * Separators as a written path has them, once the braces have chosen: a `**` that spans no segment
 * takes one separator with it (`a/**∕b` names `a/b`, `**∕b` names `b`, `a/**` names `a`), and an
 * empty alternative leaves no empty segment (`x/{a,}/y` names `x/y`, `{,a}/b` names `b`) nor a
 * trailing slash, which names a directory (`x/{a,}` names `x` and everything below it).
 *
 * Each rule adds empty moves, all found before any is added; "next to" looks through brace forks
 * only, never through a wildcard's empty match.
 */
function normaliseSeparators(nfa: DraftNfa, globstars: readonly { entry: number; after: number }[]): void {
  const nextTo = (from: number): number[] => {
    if (!nfa.forks.has(from)) return [from];
    const reached = new Set([from]);
    const pending = [from];
    for (let s = pending.pop(); s !== undefined; s = pending.pop()) {
      if (!nfa.forks.has(s)) continue;
      for (const t of nfa.eps[s]!) {
        if (!reached.has(t)) {
          reached.add(t);
          pending.push(t);
        }
      }
    }
    return [...reached];
  };
  const isSlash = (s: number) => nfa.sets[s] === slash;
  const afterEntry = new Map(globstars.map((g) => [g.entry, g.after]));
  const moves: [number, number][] = [];
  let directory = -1; // a state for `/` and then anything, made when a trailing slash needs it
  for (const { entry, after } of globstars) {
    for (const s of nextTo(after)) if (isSlash(s)) moves.push([entry, nfa.next[s]!]);
  }
  for (const s of nextTo(nfa.start)) if (isSlash(s)) moves.push([nfa.start, nfa.next[s]!]);
  const size = nfa.sets.length;
  for (let p = 0; p < size; p++) {
    if (!isSlash(p)) continue;
    for (const s of nextTo(nfa.next[p]!)) {
      const after = afterEntry.get(s);
      if (after !== undefined) moves.push([p, after]);
      if (isSlash(s)) moves.push([p, s]);
      if (s === 0) {
        if (directory === -1) {
          const below = nfa.sets.length;
          nfa.sets.push(anyChar, slash);
          nfa.next.push(below, below);
          nfa.eps.push([0], []);
          directory = below + 1;
        }
        moves.push([p, 0], [p, directory]);
      }
    }
  }
  for (const [from, to] of moves) nfa.eps[from]!.push(to);
}

// ---- Parsing -----------------------------------------------------------------------------------

/**
 * The glob as nodes, in one pass after a linear pre-scan that pairs the parentheses and braces.
 * Unpaired `[`, `{`, `}`, `(` and top-level `,` are literal characters, as in picomatch.
 */
function parseGlob(glob: string): GlobNode[] {
  const parens = pairParens(glob);
  const braces = pairBraces(glob, parens);
  const root: GlobNode[] = [];
  const frames: { start: number; options: GlobNode[][]; parent: GlobNode[] }[] = [];
  let current = root;
  let i = 0;
  const boundaryAt = (j: number) =>
    j === glob.length ||
    glob[j] === "/" ||
    braces.separator[j] === 1 ||
    braces.closer[j] === 1 ||
    braces.hasComma[j] === 1;
  while (i < glob.length) {
    const char = glob[i]!;
    const group = groupAt(glob, i, parens);
    const bracket = char === "[" ? classAt(glob, i) : null;
    if (group !== -1) {
      current.push({ kind: "any", text: glob.slice(i, group + 1) });
      i = group + 1;
    } else if (char === "{" && braces.close[i] !== -1) {
      const close = braces.close[i]!;
      if (braces.hasComma[i] === 1) {
        frames.push({ start: i, options: [], parent: current });
        current = [];
        i++;
      } else {
        // `{a}` and `{1..3}` are no alternatives: they widen to `*` (an over-approximation).
        current.push({ kind: glob.slice(i, close).includes("/") ? "any" : "star", text: "*" });
        i = close + 1;
      }
    } else if (braces.separator[i] === 1) {
      frames.at(-1)!.options.push(current);
      current = [];
      i++;
    } else if (braces.closer[i] === 1) {
      const frame = frames.pop()!;
      frame.options.push(current);
      current = frame.parent;
      current.push({ kind: "alt", options: frame.options, text: glob.slice(frame.start, i + 1) });
      i++;
    } else if (char === "*") {
      let end = i;
      while (glob[end] === "*" && groupAt(glob, end, parens) === -1) end++;
      const previous = current.at(-1);
      // Next to a brace group the segment may start or end there: take it as a whole segment.
      const segmentStart =
        previous === undefined ||
        previous.kind === "alt" ||
        (previous.kind === "char" && previous.set === slash);
      const whole = end - i === 2 && segmentStart && boundaryAt(end);
      current.push({ kind: whole ? "globstar" : "star", text: glob.slice(i, end) });
      i = end;
    } else if (char === "?") {
      current.push({ kind: "char", set: notSlash, wildcard: true, text: "?" });
      i++;
    } else if (bracket !== null) {
      current.push({ kind: "char", set: bracket.set, wildcard: true, text: glob.slice(i, bracket.end + 1) });
      i = bracket.end + 1;
    } else {
      const escaped = char === "\\" && i + 1 < glob.length;
      const literal = escaped ? glob[i + 1]! : char;
      const code = literal.charCodeAt(0);
      const set = code === slashCode ? slash : [code, code];
      current.push({ kind: "char", set, wildcard: false, text: escaped ? `\\${literal}` : literal });
      i += escaped ? 2 : 1;
    }
  }
  return root;
}

/** The end of an extglob `+(a|b)` (or a plain `(…)` group) starting at `i`, else -1. */
function groupAt(glob: string, i: number, parens: Int32Array): number {
  if (glob[i] === "(") return parens[i]!;
  if ("?*+@!".includes(glob[i]!) && glob[i + 1] === "(") return parens[i + 1]!;
  return -1;
}

/** For each `(`, the index of its `)`, or -1. */
function pairParens(glob: string): Int32Array {
  const close = new Int32Array(glob.length).fill(-1);
  const open: number[] = [];
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === "\\") i++;
    else if (glob[i] === "(") open.push(i);
    else if (glob[i] === ")" && open.length > 0) close[open.pop()!] = i;
  }
  return close;
}

/**
 * The brace groups: for each `{` its `}` (or -1) and whether it holds a top-level comma, and which
 * `,` and `}` are structure rather than text. Escapes, classes and extglobs are skipped whole.
 */
function pairBraces(glob: string, parens: Int32Array) {
  const close = new Int32Array(glob.length).fill(-1);
  const hasComma = new Uint8Array(glob.length);
  const separator = new Uint8Array(glob.length);
  const closer = new Uint8Array(glob.length);
  const open: { at: number; commas: number[] }[] = [];
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    const group = groupAt(glob, i, parens);
    if (group !== -1) i = group;
    else if (char === "\\") i++;
    else if (char === "[") i = classAt(glob, i)?.end ?? i;
    else if (char === "{") open.push({ at: i, commas: [] });
    else if (char === "," && open.length > 0) open.at(-1)!.commas.push(i);
    else if (char === "}" && open.length > 0) {
      const { at, commas } = open.pop()!;
      close[at] = i;
      closer[i] = 1;
      hasComma[at] = commas.length > 0 ? 1 : 0;
      for (const comma of commas) separator[comma] = 1;
    }
  }
  return { close, hasComma, separator, closer };
}

/** POSIX classes inside brackets (`[[:digit:]]`), as picomatch knows them. */
const posixClasses = new Map<string, CharSet>([
  ["alnum", [0x30, 0x39, 0x41, 0x5a, 0x61, 0x7a]],
  ["alpha", [0x41, 0x5a, 0x61, 0x7a]],
  ["ascii", [0x00, 0x7f]],
  ["blank", [0x09, 0x09, 0x20, 0x20]],
  ["cntrl", [0x00, 0x1f, 0x7f, 0x7f]],
  ["digit", [0x30, 0x39]],
  ["graph", [0x21, 0x7e]],
  ["lower", [0x61, 0x7a]],
  ["print", [0x20, 0x7e]],
  ["punct", [0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e]],
  ["space", [0x09, 0x0d, 0x20, 0x20]],
  ["upper", [0x41, 0x5a]],
  ["word", [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]],
  ["xdigit", [0x30, 0x39, 0x41, 0x46, 0x61, 0x66]],
]);

/**
 * The class `[…]` opening at `start`: its closing `]` and its characters, or `null` when the
 * bracket is a literal (unclosed, or a `/` comes first). `[^…]` is a negation that never matches
 * `/`; `[!…]` counts as any one character (see `globsIntersect`); `]` first is a member.
 */
function classAt(glob: string, start: number): { end: number; set: CharSet } | null {
  let i = start + 1;
  const mode = glob[i] === "^" ? "negated" : glob[i] === "!" ? "bang" : "plain";
  if (mode !== "plain") i++;
  const ranges: number[] = [];
  const codeAt = (j: number) =>
    glob[j] === "\\" && j + 1 < glob.length ? [glob.charCodeAt(j + 1), 2] : [glob.charCodeAt(j), 1];
  for (let first = true; i < glob.length; first = false) {
    if (glob[i] === "]" && !first) return { end: i, set: classSet(ranges, mode) };
    if (glob[i] === "/") return null;
    const posix = glob.startsWith("[:", i) ? posixNameAt(glob, i + 2) : null;
    if (posix !== null) {
      // An unknown name counts as any character (towards "yes").
      ranges.push(...(posixClasses.get(posix) ?? anyChar));
      i += posix.length + 4;
      continue;
    }
    const [low, width] = codeAt(i) as [number, number];
    i += width;
    if (glob[i] === "-" && i + 1 < glob.length && glob[i + 1] !== "]") {
      if (glob[i + 1] === "/") return null;
      const [high, highWidth] = codeAt(i + 1) as [number, number];
      ranges.push(Math.min(low, high), Math.max(low, high));
      i += 1 + highWidth;
    } else {
      ranges.push(low, low);
    }
  }
  return null;
}

/** `alpha` for `[:alpha:]` starting at `from` (just past `[:`), else `null`. */
function posixNameAt(glob: string, from: number): string | null {
  let end = from;
  while (end < glob.length && end - from < 8 && glob[end]! >= "a" && glob[end]! <= "z") end++;
  return end > from && glob.startsWith(":]", end) ? glob.slice(from, end) : null;
}

function classSet(ranges: readonly number[], mode: "plain" | "negated" | "bang"): CharSet {
  if (mode === "bang") return notSlash;
  const members = mergeRanges(ranges);
  if (mode === "plain") return members;
  const complement: number[] = [];
  let from = 0;
  for (let k = 0; k < members.length; k += 2) {
    if (members[k]! > from) complement.push(from, members[k]! - 1);
    from = members[k + 1]! + 1;
  }
  if (from <= lastCode) complement.push(from, lastCode);
  return intersectSets(complement, notSlash);
}

function mergeRanges(ranges: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (let k = 0; k < ranges.length; k += 2) pairs.push([ranges[k]!, ranges[k + 1]!]);
  pairs.sort((x, y) => x[0] - y[0]);
  const merged: number[] = [];
  for (const [low, high] of pairs) {
    const end = merged.length - 1;
    if (end > 0 && low <= merged[end]! + 1) merged[end] = Math.max(merged[end]!, high);
    else merged.push(low, high);
  }
  return merged;
}

function intersectSets(x: CharSet, y: CharSet): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const low = Math.max(x[i]!, y[j]!);
    const high = Math.min(x[i + 1]!, y[j + 1]!);
    if (low <= high) out.push(low, high);
    if (x[i + 1]! < y[j + 1]!) i += 2;
    else j += 2;
  }
  return out;
}
