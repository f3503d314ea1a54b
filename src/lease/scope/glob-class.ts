// Bracket classes of a scope glob (`[a-z]`, `[^…]`, `[[:digit:]]`) as character sets.
import { anyChar, type CharSet, intersectSets, lastCode, mergeRanges, notSlash } from "./char-sets.js";

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
export function classAt(glob: string, start: number): { end: number; set: CharSet } | null {
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
