// Every relative link in README.md, CHANGELOG.md and docs/**/*.md points at a file or folder of this repository (never
// outside it), and every #anchor into a Markdown file names one of its headings, as GitHub slugs them.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

const files = [join(root, "README.md"), join(root, "CHANGELOG.md"), ...markdownFiles(join(root, "docs"))];

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Targets of inline links `[text](target)` and of reference definitions `[id]: target`. */
function linkTargets(text: string): string[] {
  const body = prose(text);
  const inline = [...body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string);
  const references = [...body.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1] as string);
  return [...inline, ...references];
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const match of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = (match[1] as string)
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//");

interface Link {
  from: string;
  target: string;
}

const links: Link[] = files.flatMap((file) =>
  linkTargets(readFileSync(file, "utf8"))
    .filter((target) => !isExternal(target))
    .map((target) => ({ from: relative(root, file), target })),
);

/** Why a link does not resolve inside the repository, or null when it does. */
function brokenReason({ from, target }: Link): string | null {
  const [path = "", anchor] = target.split("#", 2);
  const resolved =
    path === "" ? join(root, from) : resolve(dirname(join(root, from)), decodeURIComponent(path));
  const inside = relative(root, resolved);
  if (inside.startsWith("..")) return "points outside the repository";
  if (!existsSync(resolved)) return "no such file";
  if (anchor && statSync(resolved).isFile() && resolved.endsWith(".md")) {
    if (!headingAnchors(readFileSync(resolved, "utf8")).has(anchor.toLowerCase()))
      return `no heading #${anchor}`;
  }
  return null;
}

describe("documentation links", () => {
  it("finds the links of README.md and docs/", () => {
    expect(files.map((file) => relative(root, file))).toContain("docs/reference/http-api.md");
    expect(links.length).toBeGreaterThan(40);
  });

  it("every relative link resolves to a file or folder of the repository, and every anchor to a heading", () => {
    const broken = links
      .map((link) => ({ ...link, reason: brokenReason(link) }))
      .filter((link) => link.reason !== null)
      .map((link) => `${link.from}: ${link.target} — ${link.reason}`);
    expect(broken).toEqual([]);
  });

  it("the checker catches a link out of the repository, a missing file and a missing heading", () => {
    expect(brokenReason({ from: "README.md", target: "../shared/SPEC.md" })).toBe(
      "points outside the repository",
    );
    expect(brokenReason({ from: "docs/deploy.md", target: "reference/nowhere.md" })).toBe("no such file");
    expect(brokenReason({ from: "README.md", target: "docs/deploy.md#no-such-heading" })).toBe(
      "no heading #no-such-heading",
    );
    expect(
      brokenReason({ from: "docs/reference/config.md", target: "#per-repository-githubclaim-holdyml" }),
    ).toBeNull();
  });

  it("slugs headings as GitHub does", () => {
    const anchors = headingAnchors(
      "# Fencing the merge: the `claim-hold` check run\n## 5. Scale out\n## A\n## A\n",
    );
    expect([...anchors]).toEqual(["fencing-the-merge-the-claim-hold-check-run", "5-scale-out", "a", "a-1"]);
  });
});
