// Character sets of glob automata: sorted, disjoint code-unit ranges, and the operations on them.

/** A set of UTF-16 code units: sorted, disjoint, inclusive `[low, high]` pairs. */
export type CharSet = readonly number[];

export const slashCode = 0x2f;
export const lastCode = 0xffff;
export const anyChar: CharSet = [0, lastCode];
export const notSlash: CharSet = [0, slashCode - 1, slashCode + 1, lastCode];
/** Every literal `/` uses this very set, so `**` can find the separators next to it by identity. */
export const slash: CharSet = [slashCode, slashCode];

export function setsOverlap(x: CharSet, y: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    if (x[i + 1]! < y[j]!) i += 2;
    else if (y[j + 1]! < x[i]!) j += 2;
    else return true;
  }
  return false;
}

export function mergeRanges(ranges: readonly number[]): number[] {
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

export function intersectSets(x: CharSet, y: CharSet): number[] {
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
