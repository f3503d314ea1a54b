// Scope globs parsed into nodes (characters, stars, globstars, brace alternatives), and counts over them.
import { type CharSet, notSlash, slash, slashCode } from "./char-sets.js";
import { classAt } from "./glob-class.js";

export type GlobNode =
  /** One character: a literal (`wildcard: false`), `?` or a class. */
  | { kind: "char"; set: CharSet; wildcard: boolean; text: string }
  /** Any run of characters within one segment (`*`). */
  | { kind: "star"; text: string }
  /** Any run of characters, `/` included: the approximation for extglobs and the like. */
  | { kind: "any"; text: string }
  /** `**` as a whole segment: zero or more segments. */
  | { kind: "globstar"; text: string }
  | { kind: "alt"; options: GlobNode[][]; text: string };

export function isWildcard(node: GlobNode): boolean {
  return node.kind !== "char" || node.wildcard;
}

export function wildcardsIn(nodes: readonly GlobNode[]): number {
  let count = 0;
  for (const node of nodes) {
    if (node.kind === "alt") for (const option of node.options) count += wildcardsIn(option);
    else if (isWildcard(node)) count++;
  }
  return count;
}

/** How many globs the braces expand to (capped, so that nesting cannot overflow). */
export function alternativesIn(nodes: readonly GlobNode[]): number {
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
 * The glob as nodes, in one pass after a linear pre-scan that pairs the parentheses and braces.
 * Unpaired `[`, `{`, `}`, `(` and top-level `,` are literal characters, as in picomatch.
 */
export function parseGlob(glob: string): GlobNode[] {
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
