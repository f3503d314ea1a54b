// Web links to a subject's issue, pull requests, comments, branch and repository on its forge: pure, built from a web base chosen once per installation record.
import { type Forge, forgeOfInstallation, giteaInstallationRecordId } from "./forge.js";

/** Where a forge's web pages live and how its paths are shaped: `https://github.com` (or GHE's host), a Gitea instance's root. */
export interface WebBase {
  forge: Forge;
  /** The web root without a trailing slash. */
  url: string;
}

export type WebTarget =
  | { kind: "repository"; repo: string }
  | { kind: "issue"; repo: string; issue: number }
  | { kind: "pull"; repo: string; pull: number }
  /** A pull request's checks (GitHub's checks tab; Gitea shows a PR's commit statuses on the PR). */
  | { kind: "pull-checks"; repo: string; pull: number }
  | { kind: "comment"; repo: string; issue: number; commentId: number }
  | { kind: "branch"; repo: string; branch: string }
  /** A commit's checks (GitHub's check runs; Gitea shows a commit's statuses on the commit). */
  | { kind: "commit-checks"; repo: string; sha: string };

/**
 * The web base of an installation record: GitHub's for a GitHub installation, the served Gitea
 * instance's for its record; null for a Gitea record of no instance served (no link at all).
 */
export type WebBaseOf = (installationId: number) => WebBase | null;

/** `owner/name` with each part encoded, so an odd repository name cannot leave its path. */
function repoPath(repo: string): string {
  return repo.split("/").map(encodeURIComponent).join("/");
}

/** A branch keeps its slashes as path separators; everything else is encoded. */
function branchPath(branch: string): string {
  return branch.split("/").map(encodeURIComponent).join("/");
}

export function webLink(base: WebBase, target: WebTarget): string {
  const repo = `${base.url}/${repoPath(target.repo)}`;
  const gitea = base.forge === "gitea";
  switch (target.kind) {
    case "repository":
      return repo;
    case "issue":
      return `${repo}/issues/${target.issue}`;
    case "pull":
      return `${repo}/${gitea ? "pulls" : "pull"}/${target.pull}`;
    case "pull-checks":
      return gitea ? `${repo}/pulls/${target.pull}` : `${repo}/pull/${target.pull}/checks`;
    case "comment":
      return `${repo}/issues/${target.issue}#issuecomment-${target.commentId}`;
    case "branch":
      return `${repo}/${gitea ? "src/branch" : "tree"}/${branchPath(target.branch)}`;
    case "commit-checks":
      return `${repo}/commit/${encodeURIComponent(target.sha)}${gitea ? "" : "/checks"}`;
  }
}

/** How a page names the forge a link goes to ("The issue on GitHub"). */
export function forgeTitle(forge: Forge): string {
  return forge === "gitea" ? "Gitea" : "GitHub";
}

/** A web root as a base: scheme, host and path kept, the trailing slashes dropped; null for anything but http(s). */
export function webRootOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return null;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return null;
  return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, "")}`;
}

/**
 * Picks the web base by the record's forge (`forgeOfInstallation`): GitHub's for GitHub
 * installations, a served Gitea instance's for the record it is served under (`GITEA_INSTALLATION_ID`,
 * or N for `GITEA_URL_<N>`). Any other Gitea record (an instance no longer configured, or another
 * number) gets null: its repositories are not a served instance's, nor GitHub's namesakes.
 */
export function webBasesOf(bases: {
  github: string;
  gitea?:
    | { url: string; installationId: number }
    | readonly { url: string; installationId: number }[]
    | undefined;
}): WebBaseOf {
  const github: WebBase = { forge: "github", url: webRootOf(bases.github) ?? "https://github.com" };
  const instances = bases.gitea === undefined ? [] : "url" in bases.gitea ? [bases.gitea] : bases.gitea;
  const giteas = new Map<number, WebBase | null>();
  for (const instance of instances) {
    const root = webRootOf(instance.url);
    giteas.set(
      giteaInstallationRecordId(instance.installationId),
      root ? { forge: "gitea", url: root } : null,
    );
  }
  return (installationId) => {
    if (forgeOfInstallation(installationId).forge !== "gitea") return github;
    return giteas.get(installationId) ?? null;
  };
}
