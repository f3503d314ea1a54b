// Links from the dashboard to GitHub (or GHE): pure, built from the App's REST base URL, never a request.

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

/** `owner/name` with each part encoded, so an odd repository name cannot leave its path. */
function repoPath(repo: string): string {
  return repo.split("/").map(encodeURIComponent).join("/");
}

export function issueUrl(web: string, repo: string, issue: number): string {
  return `${web}/${repoPath(repo)}/issues/${issue}`;
}

export function pullUrl(web: string, repo: string, pull: number): string {
  return `${web}/${repoPath(repo)}/pull/${pull}`;
}

/** A branch's tree; its slashes stay path separators, everything else is encoded. */
export function branchUrl(web: string, repo: string, branch: string): string {
  return `${web}/${repoPath(repo)}/tree/${branch.split("/").map(encodeURIComponent).join("/")}`;
}

/** `owner/name#12` → its parts; null for anything else. */
export function parseSubject(subject: string): { repo: string; issue: number } | null {
  const match = /^([^/\s#]+\/[^/\s#]+)#(\d{1,10})$/.exec(subject);
  return match ? { repo: match[1]!, issue: Number(match[2]) } : null;
}

export function commentUrl(web: string, repo: string, issue: number, commentId: number): string {
  return `${issueUrl(web, repo, issue)}#issuecomment-${commentId}`;
}

/** The checks of a PR's head commit (the claim-hold check run among them). */
export function commitChecksUrl(web: string, repo: string, sha: string): string {
  return `${web}/${repoPath(repo)}/commit/${encodeURIComponent(sha)}/checks`;
}

/** The dashboard's own page of a subject (same origin, under the admin session). */
export function subjectPageUrl(repo: string, issue: number): string {
  return `/subjects/${repoPath(repo)}/${issue}`;
}
