// Parsed globs as automata, and the bounded search for a path two automata both accept.
import { anyChar, type CharSet, notSlash, setsOverlap, slash } from "./char-sets.js";
import type { GlobNode } from "./parse-glob.js";

/** What is left of a search budget, shared by the comparisons of one call. */
export interface Budget {
  states: number;
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
export interface Nfa {
  start: number;
  /** Per state, the index in `sets` of its character edge's set, or -1. */
  setOf: Int32Array;
  next: Int32Array;
  /** The empty moves of state `s` are `epsTo[epsFrom[s]]` up to `epsTo[epsFrom[s + 1] - 1]`. */
  epsFrom: Int32Array;
  epsTo: Int32Array;
  sets: CharSet[];
}

/**
 * Is there a path both automata accept? A search over pairs of states, each pair visited once:
 * O(states(a) · states(b)), and the states are linear in the glob's length. `null` once `budget`
 * (pairs of states, shared with other searches) is spent.
 */
export function automataIntersect(a: Nfa, b: Nfa, budget: Budget): boolean | null {
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

/** The automaton of a parsed glob, built back to front so every node knows what follows it. */
export function automatonOf(nodes: readonly GlobNode[]): Nfa {
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
