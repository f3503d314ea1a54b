// Property-based checks of scope-glob intersection (fast-check, seeds printed): every call within a time
// budget, agreement with picomatch (the oracle, on short inputs only) for a path against a glob, and no
// missed overlap between two globs that both name a path.
import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import {
  expandBraces,
  globsIntersect,
  scopeGlobLimits,
  scopeGlobProblem,
} from "../../src/lease/scope/glob-intersection.js";

const runs = Number(process.env.FUZZ_RUNS ?? 3000);
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const params = { numRuns: runs, seed };
console.log(`fuzz seed ${seed} (FUZZ_SEED=${seed} reproduces it), ${runs} runs per property`);

/** The per-call budget: generous, since the suite shares a loaded machine; a backtracking matcher needs seconds. */
const budgetMs = 50;

/** picomatch as the scope semantics read it (dot files count), run on short inputs only. */
function picomatchSays(glob: string, path: string): boolean {
  return picomatch(glob, { dot: true })(path);
}

// ---- Globs up to the API's bounds, hostile shapes included ----------------------------------------

const wildcardAtom = fc.constantFrom(
  "*a",
  "*",
  "?",
  "/**/",
  "[a-c]",
  "[^a]",
  "*.",
  "a*",
  "?b",
  "[[:alpha:]]",
);
const braceAtom = fc.constantFrom("{a,b}", "{a,}", "{*a,b}", "{x/**,y}", "{ab,cd}", "{1..3}", "+(a|b)");
const plainAtom = fc.stringMatching(/^[a-z./-]{1,6}$/);
/**
 * Random globs the API accepts, many of them near its bounds: up to 200 characters, 32 wildcards and
 * six two-way brace groups (64 alternatives), in any order; the backtracking killer among them.
 */
const boundedGlob = fc.oneof(
  fc
    .tuple(
      fc.array(wildcardAtom, { maxLength: 32, size: "max" }),
      fc.array(braceAtom, { maxLength: 6, size: "max" }),
      fc.array(plainAtom, { maxLength: 20, size: "max" }),
    )
    .chain(([wild, braces, plain]) => {
      const atoms = [...wild, ...braces, ...plain];
      return fc.shuffledSubarray(atoms, { minLength: atoms.length });
    })
    .map((atoms) => atoms.join("").slice(0, 200))
    .filter((glob) => glob.trim() !== "" && scopeGlobProblem(glob) === null),
  fc.constantFrom(
    `${"*a".repeat(12)}*b`,
    `${"*a".repeat(31)}*b`,
    `${"**/*a".repeat(16)}/b`,
    "{a,b}".repeat(6),
  ),
);
const longLiteral = fc
  .array(fc.constantFrom("a", "b", "c", ".", "/"), { minLength: 1, maxLength: 200, size: "max" })
  .map((chars) => chars.join(""));

/** The best of three timings: a blow-up is slow every time, a scheduler hiccup once. */
function millisecondsFor(a: string, b: string): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    globsIntersect(a, b);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

describe("globsIntersect time budget", () => {
  it(`answers every pair of bounded globs within ${budgetMs} ms`, () => {
    // Measure compiled code, not the first calls' warm-up.
    for (let i = 0; i < 20; i++) globsIntersect(`${"*a".repeat(16)}*b`, `${"*a?".repeat(16)}/**`);
    fc.assert(
      fc.property(boundedGlob, fc.oneof(boundedGlob, longLiteral), (a, b) => {
        expect(millisecondsFor(a, b)).toBeLessThan(budgetMs);
        expect(millisecondsFor(b, a)).toBeLessThan(budgetMs);
        expect(globsIntersect(a, b)).toBe(globsIntersect(b, a));
      }),
      { ...params, numRuns: Math.min(runs, 500) },
    );
  });

  it("keeps the generated globs within the bounds they claim", () => {
    fc.assert(
      fc.property(boundedGlob, (glob) => {
        expect(glob.length).toBeLessThanOrEqual(200);
        expect(scopeGlobProblem(glob)).toBeNull();
      }),
      { ...params, numRuns: 200 },
    );
    expect(scopeGlobLimits).toEqual({ wildcards: 32, alternatives: 64 });
    const lengths = fc.sample(boundedGlob, { numRuns: 200, seed }).map((glob) => glob.length);
    expect(Math.max(...lengths)).toBeGreaterThan(150);
  });
});

describe("glob parsing on any text", () => {
  const text = fc.string({
    unit: fc.oneof(fc.constantFrom(..."*?[]{}(),!^-+@:/\\.ab"), fc.string({ minLength: 1, maxLength: 1 })),
    maxLength: 60,
  });

  it("never throws: an answer both ways round, a verdict, at most 32 listed alternatives", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(globsIntersect(a, b)).toBe(globsIntersect(b, a));
        expect(scopeGlobProblem(a) ?? "accepted").toMatch(/^(accepted$|may |must )/);
        expect(expandBraces(a).length).toBeGreaterThanOrEqual(1);
        expect(expandBraces(a).length).toBeLessThanOrEqual(32);
      }),
      params,
    );
  });
});

// ---- Short, non-hostile globs and paths for the oracle ----------------------------------------------

/** A path segment of a, b and dots, never `.` or `..` (the normaliser drops those). */
const segment = fc.stringMatching(/^[ab.]{1,4}$/).filter((s) => s !== "." && s !== "..");
/** A path whose last segment has an extension, so the glob code does not also read it as a directory. */
const path = fc
  .tuple(fc.array(segment, { maxLength: 3 }), segment, fc.constantFrom("a", "b"))
  .map(([dirs, name, ext]) => [...dirs, `${name}.${ext}`].join("/"));

const shortAtom = fc.constantFrom(
  "a",
  "b",
  ".",
  "*",
  "?",
  "[ab]",
  "[^a]",
  "[a-b]",
  "{a,b}",
  "{a,}",
  "{.a,b*}",
  "{a.b,*a}",
);
const globSegment = fc.oneof(
  { weight: 1, arbitrary: fc.constant("**") },
  { weight: 5, arbitrary: fc.array(shortAtom, { minLength: 1, maxLength: 4 }).map((a) => a.join("")) },
);
/**
 * Globs where picomatch and the scope semantics mean the same: `**` only as a whole segment (picomatch
 * lets `**.a` cross a `/`), no final `**` after a segment ending in `*` (there picomatch wants the `/`:
 * `*∕**` misses `a`, while `?∕**` names it), no segment that an empty alternative leaves empty or `*`
 * alone (picomatch keeps an empty segment or trailing slash, which a written path has not, and after
 * `**∕{a,}` lets that `*` match nothing), no `.` or `..` segment, and at least one wildcard (a literal
 * glob is also a directory).
 */
const shortGlob = fc
  .array(globSegment, { minLength: 1, maxLength: 4 })
  .filter((segments) =>
    segments.every(
      (s) =>
        s === "**" ||
        (!s.includes("**") && s !== "." && s !== ".." && !/^\**$/.test(s.replaceAll("{a,}", ""))),
    ),
  )
  .map((segments) => segments.join("/"))
  .filter((glob) => /[*?[{]/.test(glob) && !/\*\/\*\*$/.test(glob));

describe("globsIntersect against picomatch", () => {
  it("a path intersects a glob exactly when picomatch matches it", () => {
    fc.assert(
      fc.property(shortGlob, path, (glob, file) => {
        const expected = picomatchSays(glob, file);
        expect(globsIntersect(glob, file)).toBe(expected);
        expect(globsIntersect(file, glob)).toBe(expected);
      }),
      params,
    );
  });

  it("a path intersects a glob exactly when picomatch matches it, on paths the glob was made from", () => {
    // Random paths rarely match; generalising a path's characters gives as many matches as misses.
    fc.assert(
      fc.property(
        path.chain((file) => fc.tuple(fc.constant(file), generalised(file))),
        ([file, glob]) => {
          const other = file.replace(/a/, "b");
          expect(globsIntersect(glob, file)).toBe(picomatchSays(glob, file));
          expect(globsIntersect(glob, other)).toBe(picomatchSays(glob, other));
        },
      ),
      params,
    );
  });

  it("two globs that both match a path intersect", () => {
    fc.assert(
      fc.property(
        path.chain((file) => fc.tuple(fc.constant(file), generalised(file), generalised(file))),
        ([file, a, b]) => {
          fc.pre(picomatchSays(a, file) && picomatchSays(b, file));
          expect(globsIntersect(a, b)).toBe(true);
          expect(globsIntersect(b, a)).toBe(true);
        },
      ),
      params,
    );
  });
});

/**
 * A glob that (mostly) matches `file` (the final `**` quirk above is left out): each character may become `?`, a class or a brace group holding
 * it, runs may become `*`, and whole segments `**`.
 */
function generalised(file: string): fc.Arbitrary<string> {
  const segments = file.split("/");
  return fc
    .tuple(
      ...segments.map((name) =>
        fc.oneof(
          { weight: 1, arbitrary: fc.constant("**") },
          {
            weight: 6,
            arbitrary: fc
              .tuple(...[...name].map((char) => generalisedChar(char)))
              .map((parts) => parts.join("").replace(/\*{2,}/g, "*")),
          },
        ),
      ),
    )
    .map((parts) => parts.join("/"))
    .filter((glob) => !/\*\/\*\*$/.test(glob));
}

function generalisedChar(char: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(char) },
    { weight: 1, arbitrary: fc.constantFrom("?", "*", `[${char}x]`, `{${char},x}`, `[^q]`) },
    { weight: 1, arbitrary: fc.constantFrom(`*${char}`, `${char}*`) },
  );
}
