// Declared work scopes: glob intersection on a table of pairs, live-claim filtering, and the API's validation.
import { describe, expect, it } from "vitest";
import type { ClaimRecord } from "../src/domain/claim.js";
import { ClaimBody } from "../src/handlers/api-schemas.js";
import {
  expandBraces,
  globsIntersect,
  liveScopeOverlaps,
  scopeIntersections,
} from "../src/lease/scope-overlap.js";

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

  it("over-approximates pattern segments by their literal ends (a documented false positive)", () => {
    expect(globsIntersect("src/[ab]*.ts", "src/c*.ts")).toBe(true);
  });
});

describe("expandBraces", () => {
  it("expands nested groups and leaves ranges and single options as wildcards", () => {
    expect(expandBraces("a/{b,c{d,e}}/f")).toEqual(["a/b/f", "a/cd/f", "a/ce/f"]);
    expect(expandBraces("a/{1..3}.txt")).toEqual(["a/*.txt"]);
    expect(expandBraces("plain/path")).toEqual(["plain/path"]);
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
