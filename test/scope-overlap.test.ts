// Declared work scopes: glob intersection on a table of pairs, live-claim filtering, and the API's validation.
import { describe, expect, it } from "vitest";
import type { ClaimRecord } from "../src/domain/claim.js";
import { ClaimBody } from "../src/http/api-schemas.js";
import { expandBraces, globsIntersect } from "../src/lease/scope/glob-intersection.js";
import { liveScopeOverlaps, scopeIntersections } from "../src/lease/scope/scope-overlap.js";

describe("globsIntersect", () => {
  it.each([
    // identical and literal
    ["src/parser/**", "src/parser/**", true],
    ["docs/a.md", "docs/a.md", true],
    ["docs/a.md", "docs/b.md", false],
    ["./src/a.ts", "src/a.ts", true],
    ["src//a.ts", "src/a.ts", true],
    // nesting: ** spans zero or more segments
    ["src/**", "src/parser/x.ts", true],
    ["src/**", "src", true],
    ["src/**/x.ts", "src/x.ts", true],
    ["src/**/x.ts", "src/a/b/c/x.ts", true],
    ["src/**/x.ts", "src/a/y.ts", false],
    ["**", "anything/at/all.txt", true],
    ["src/**/*.test.ts", "src/parser/**", true],
    ["src/*/index.ts", "src/parser/**", true],
    ["src/*/index.ts", "src/a/b/index.ts", false],
    // disjoint directories
    ["src/parser/**", "src/lexer/**", false],
    ["src/**", "docs/**", false],
    ["src/parser/**", "test/parser/**", false],
    // glob semantics, not .gitignore: *.md names top-level files only
    ["*.md", "docs/a.md", false],
    ["*.md", "README.md", true],
    ["**/*.md", "docs/a.md", true],
    ["*.md", "*.ts", false],
    ["*.md", "README*", true],
    ["docs/*.md", "docs/guide/*.md", false],
    // a literal path or a trailing slash is a directory too
    ["src/parser", "src/parser/x.ts", true],
    ["docs/", "docs/a.md", true],
    ["src/parser", "src/parser-old/x.ts", false],
    // braces expand into alternatives
    ["src/{parser,lexer}/**", "src/lexer/token.ts", true],
    ["src/{parser,lexer}/**", "src/emitter/out.ts", false],
    ["{src,test}/**/*.ts", "test/a.ts", true],
    ["docs/*.{md,mdx}", "docs/intro.mdx", true],
    ["docs/*.{md,mdx}", "docs/intro.txt", false],
    // single-segment patterns against each other
    ["src/parse*.ts", "src/*er.ts", true],
    ["src/a*.ts", "src/b*.ts", false],
    ["src/?.ts", "src/x.ts", true],
    ["src/[ab].ts", "src/c.ts", false],
    // dot files count
    ["*", ".env", true],
    [".github/**", ".github/workflows/ci.yml", true],
    [".github", ".github/workflows/ci.yml", true],
    // negations exclude files, they never declare any
    ["!src/gen/**", "src/gen/a.ts", false],
    ["!docs/**", "!docs/**", false],
  ])("%s ∩ %s → %s", (a, b, expected) => {
    expect(globsIntersect(a, b)).toBe(expected);
    expect(globsIntersect(b, a)).toBe(expected);
  });

  it("decides two pattern segments exactly, classes included", () => {
    // Was a documented false positive while pattern segments were compared by their literal ends.
    expect(globsIntersect("src/[ab]*.ts", "src/c*.ts")).toBe(false);
    expect(globsIntersect("src/[ab]*.ts", "src/[bc]*.ts")).toBe(true);
  });

  it.each([
    ["src/*.{ts,tsx}", "src/*.tsx", true],
    ["src/[a-c]*", "src/[d-f]*", false],
    ["src/[^a]*", "src/a*", false],
    ["src/[[:digit:]]*.ts", "src/v*.ts", false],
    ["**/*.test.ts", "src/**/*.ts", true],
    ["*/*/x.ts", "**/y/x.ts", true],
    ["a/*/b/*", "a/b/*", false],
    ["a/**/b/**", "a/b", true],
    ["**/b", "b", true],
    ["{src,lib}/**", "{test,docs}/**", false],
    ["src/{a,b{c,d}}/x.ts", "src/bd/x.ts", true],
    ["src/{a,b{c,d}}/x.ts", "src/bc/y.ts", false],
    ["*.md", ".*", true],
    ["*", "a/b.ts", false],
    [".", "src/a.ts", true],
    ["a**b", "a/b", false],
  ])("pattern against pattern: %s ∩ %s → %s", (a, b, expected) => {
    expect(globsIntersect(a, b)).toBe(expected);
    expect(globsIntersect(b, a)).toBe(expected);
  });

  it.each([
    // picomatch reads `[!a]` as the characters ! and a, shells as "not a": both are covered.
    ["src/[!a].ts", "src/a.ts"],
    ["src/[!a].ts", "src/!.ts"],
    // extglobs and (…) groups count as any text, `/` included.
    ["src/+(a|b).ts", "src/x/y.ts"],
    // a `**` beside a brace is taken as a whole segment.
    ["{**,lib}/x.ts", "x.ts"],
    // `{a}` and ranges are not alternatives; they widen to `*`.
    ["src/{1..3}.ts", "src/9.ts"],
    // too long to compare: reported as intersecting.
    [`${"a".repeat(300)}/**`, "docs/a.md"],
  ])("errs towards yes where it approximates: %s ∩ %s", (a, b) => {
    expect(globsIntersect(a, b)).toBe(true);
    expect(globsIntersect(b, a)).toBe(true);
  });
});

describe("globsIntersect on hostile globs", () => {
  // `*a` twelve times then `*b`: a backtracking matcher tries every split of the a's before failing.
  const hostile = `${"*a".repeat(12)}*b`;
  const hostile200 = `${"*a".repeat(99)}*b`;
  /** The answer and the time it took, so each case can hold the event loop to a budget. */
  function timed(a: string, b: string): { answer: boolean; ms: number } {
    const started = performance.now();
    const answer = globsIntersect(a, b);
    return { answer, ms: performance.now() - started };
  }

  it.each([
    [hostile, "a".repeat(33), false],
    [hostile, "a".repeat(40), false],
    [hostile, "a".repeat(200), false],
    [hostile200, "a".repeat(200), false],
    [hostile, `${"a".repeat(40)}b`, true],
    [hostile200, `${"a".repeat(200)}b`, true],
    [hostile, hostile200, true],
    [hostile200, `${"*b".repeat(99)}*a`, false],
  ])("%s ∩ %s → %s within 100 ms", (a, b, expected) => {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      const { answer, ms } = timed(x, y);
      expect(answer).toBe(expected);
      expect(ms).toBeLessThan(100);
    }
  });
});

describe("expandBraces", () => {
  it("expands nested groups and leaves ranges and single options as wildcards", () => {
    expect(expandBraces("a/{b,c{d,e}}/f")).toEqual(["a/b/f", "a/cd/f", "a/ce/f"]);
    expect(expandBraces("a/{1..3}.txt")).toEqual(["a/*.txt"]);
    expect(expandBraces("plain/path")).toEqual(["plain/path"]);
  });

  it("lists 40 two-way groups in bounded time (it once tried every combination)", () => {
    const started = performance.now();
    const expanded = expandBraces("{a,b}".repeat(40));
    expect(performance.now() - started).toBeLessThan(100);
    expect(expanded).toHaveLength(32);
    expect(expanded[0]).toBe(`${"a".repeat(5)}${"*".repeat(35)}`);
  });

  it("widens a group to * once the alternatives pass the limit", () => {
    const many = `{${Array.from({ length: 40 }, (_, i) => `d${i}`).join(",")}}/x.ts`;
    expect(expandBraces(many)).toEqual(["*/x.ts"]);
  });
});

describe("scopeIntersections", () => {
  it("lists each intersecting pair once, the glob alone when both declared it", () => {
    expect(
      scopeIntersections(["src/parser/**", "docs/parser.md"], ["src/**", "docs/parser.md", "README.md"]),
    ).toEqual(["src/parser/** ∩ src/**", "docs/parser.md"]);
    expect(scopeIntersections(["src/a/**"], ["src/b/**"])).toEqual([]);
    expect(scopeIntersections([], ["src/**"])).toEqual([]);
  });
});

describe("scopeIntersections on hostile scopes", () => {
  // 50 globs a side at the API's bounds (32 wildcards each): exactly, 2 500 searches of seconds in all.
  const mine = [...Array.from({ length: 49 }, (_, i) => `src/${"*aaaa".repeat(31)}*a${i}`), "docs/*.md"];
  const theirs = [
    ...Array.from({ length: 48 }, (_, i) => `src/${"*aaaa".repeat(31)}*b${i}`),
    "docs/a.md",
    "lib/**",
  ];

  it("stays within its search budget, past it comparing literal prefixes (towards yes)", () => {
    expect([...mine, ...theirs].map((glob) => ClaimBody.shape.scope.parse([glob]))).toHaveLength(100);
    const started = performance.now();
    const pairs = scopeIntersections(mine, theirs);
    expect(performance.now() - started).toBeLessThan(500);
    expect(pairs).toContain("docs/*.md ∩ docs/a.md");
    expect(pairs.filter((pair) => pair.includes("lib/**"))).toEqual([]);
    // Exactly these do not meet; past the budget their common `src` prefix reports them.
    expect(globsIntersect(mine[0]!, theirs[0]!)).toBe(false);
    expect(pairs).toContain(`${mine[48]} ∩ ${theirs[47]}`);
  });
});

describe("liveScopeOverlaps", () => {
  const now = Date.parse("2026-11-29T10:00:00Z");
  const durations = { ttlMs: 30 * 60_000, reclaimAfterMs: 60 * 60_000, heartbeatMs: 5 * 60_000 };
  function record(
    issue: number,
    scope: string[] | undefined,
    changes: Partial<ClaimRecord> = {},
  ): ClaimRecord {
    return {
      installationId: 42,
      repoId: 7,
      issue,
      repo: "octo/widgets",
      generation: 1,
      state: "active",
      actor: { kind: "agent", login: "fleet-bot", runtime: "codex", sessionId: `s${issue}` },
      taskClass: "author",
      durations,
      claimedAt: now - 60_000,
      lastHeartbeatAt: now - 60_000,
      appAssigned: true,
      sync: "done",
      ...(scope ? { scope } : {}),
      ...changes,
    };
  }

  it("counts only other live agent claims with an intersecting scope", () => {
    const records = [
      record(12, ["src/parser/**"]), // self
      record(13, ["src/**"]), // live, intersects
      record(14, ["docs/**"]), // live, disjoint
      record(15, ["src/parser/x.ts"], { lastHeartbeatAt: now - durations.ttlMs }), // stale
      record(16, ["src/**"], { state: "released" }), // ended
      record(17, ["src/**"], { state: "human", actor: { kind: "human", login: "octocat" } }),
      record(18, undefined), // no declared scope
    ];
    expect(liveScopeOverlaps(["src/parser/**"], { repoId: 7, issue: 12 }, records, now)).toEqual([
      {
        subject: "octo/widgets#13",
        holder: { kind: "agent", login: "fleet-bot", runtime: "codex", sessionId: "s13" },
        paths: ["src/parser/** ∩ src/**"],
      },
    ]);
    expect(liveScopeOverlaps(undefined, { repoId: 7, issue: 12 }, records, now)).toEqual([]);
  });
});

describe("ClaimBody scope and artifacts", () => {
  const base = { repo: "octo/widgets", issue: 12, actor: { sessionId: "s1" } };
  const problem = (extra: Record<string, unknown>) => {
    const parsed = ClaimBody.safeParse({ ...base, ...extra });
    return parsed.success ? null : parsed.error.issues[0]?.message;
  };

  it("accepts relative globs, negations included", () => {
    expect(problem({ scope: ["src/**", "!src/gen/**", "./docs/*.md", "{a,b}/c.ts"] })).toBeNull();
  });

  it("accepts globs at the limits: 32 wildcards, 64 brace alternatives", () => {
    expect(problem({ scope: [`${"*a".repeat(12)}*b`, `src/${"?".repeat(32)}`] })).toBeNull();
    expect(problem({ scope: ["{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}.ts", "src/{a,b{c,d}}/**"] })).toBeNull();
  });

  it("names the refused glob's field, for the API's 422", () => {
    const parsed = ClaimBody.safeParse({ ...base, scope: ["src/**", `${"*a".repeat(40)}`] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["scope", 1]);
  });

  it.each([
    ["/etc/passwd", "must be relative to the repository root (no leading /, ~ or drive letter)"],
    ["~/notes.md", "must be relative to the repository root (no leading /, ~ or drive letter)"],
    ["C:/work/x.ts", "must be relative to the repository root (no leading /, ~ or drive letter)"],
    ["!/abs/**", "must be relative to the repository root (no leading /, ~ or drive letter)"],
    ["../other/**", "must not contain .. segments"],
    ["src/../../x", "must not contain .. segments"],
    ["src\\a.ts", "must use / as the path separator"],
    ["src/a\n.ts", "must not contain control characters"],
    ["x".repeat(201), "Too big: expected string to have <=200 characters"],
    [`${"*a".repeat(99)}*b`, "may hold at most 32 wildcards (*, ?, **, [...])"],
    [`src/${"?".repeat(33)}`, "may hold at most 32 wildcards (*, ?, **, [...])"],
    ["{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}.ts", "may expand to at most 64 alternatives with braces"],
    [
      `{${Array.from({ length: 65 }, (_, i) => i).join(",")}}/x.ts`,
      "may expand to at most 64 alternatives with braces",
    ],
  ])("rejects the scope glob %j", (glob, message) => {
    expect(problem({ scope: [glob] })).toBe(message);
  });

  it("rejects more than 50 globs", () => {
    expect(problem({ scope: Array.from({ length: 51 }, (_, i) => `dir${i}/**`) })).toBe(
      "may list at most 50 globs",
    );
  });

  it("accepts http(s) URLs and paths as artifacts, nothing else", () => {
    expect(problem({ artifacts: "https://ci.example/run/81" })).toBeNull();
    expect(problem({ artifacts: "notes/handoff.md" })).toBeNull();
    expect(problem({ artifacts: "C:\\handoff\\notes.md" })).toBeNull();
    expect(problem({ artifacts: "javascript:alert(1)" })).toBe("must be an http(s) URL or a path");
    expect(problem({ artifacts: "data:text/html,<b>x</b>" })).toBe("must be an http(s) URL or a path");
    expect(problem({ artifacts: "line\nbreak" })).toBe("must not contain control characters");
  });
});
