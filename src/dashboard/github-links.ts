// Links from the dashboard to the subject's forge (GitHub, GHE or a Gitea instance): pure, built from the record's web base (domain/web-links.ts), never a request.
import { forgeOfAddress, type SubjectAddress } from "../domain/subject-address.js";
import { type WebBase, webBasesOf, webLink } from "../domain/web-links.js";

export { type WebBase, webBasesOf };

/** The web base of a REST base: `https://api.github.com` → `https://github.com`, GHE's `…/api/v3` → `…`. */
export function githubWebUrlOf(restBaseUrl: string | undefined): string {
  const base = (restBaseUrl ?? "https://api.github.com").replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return "https://github.com";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "https://github.com";
  if (url.hostname === "api.github.com") return "https://github.com";
  const path = url.pathname.replace(/\/api\/v3$/, "").replace(/\/+$/, "");
  return `${url.protocol}//${url.host}${path}`;
}

export function issueUrl(web: WebBase, repo: string, issue: number): string {
  return webLink(web, { kind: "issue", repo, issue });
}

export function pullUrl(web: WebBase, repo: string, pull: number): string {
  return webLink(web, { kind: "pull", repo, pull });
}

export function pullChecksUrl(web: WebBase, repo: string, pull: number): string {
  return webLink(web, { kind: "pull-checks", repo, pull });
}

/** A branch's tree; its slashes stay path separators, everything else is encoded. */
export function branchUrl(web: WebBase, repo: string, branch: string): string {
  return webLink(web, { kind: "branch", repo, branch });
}

/** `owner/name#12` → its parts; null for anything else. */
export function parseSubject(subject: string): { repo: string; issue: number } | null {
  const match = /^([^/\s#]+\/[^/\s#]+)#(\d{1,10})$/.exec(subject);
  return match ? { repo: match[1]!, issue: Number(match[2]) } : null;
}

export function commentUrl(web: WebBase, repo: string, issue: number, commentId: number): string {
  return webLink(web, { kind: "comment", repo, issue, commentId });
}

/** The checks of a PR's head commit (the claim-hold check run, or commit status, among them). */
export function commitChecksUrl(web: WebBase, repo: string, sha: string): string {
  return webLink(web, { kind: "commit-checks", repo, sha });
}

/**
 * The dashboard's own page of a subject (same origin, under the admin session): GitHub's
 * `/subjects/{owner}/{repo}/{n}`, another forge's `/subjects/{forge}/{record}/{owner}/{repo}/{n}`.
 */
export function subjectPageUrl(repo: string, issue: number, installationId?: number): string {
  const path = `${repo.split("/").map(encodeURIComponent).join("/")}/${issue}`;
  const address: SubjectAddress =
    installationId === undefined ? { repo, issue } : { repo, issue, installationId };
  const forge = forgeOfAddress(address);
  return forge === "github" ? `/subjects/${path}` : `/subjects/${forge}/${installationId}/${path}`;
}
