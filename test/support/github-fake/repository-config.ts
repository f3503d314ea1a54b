// A repository's `.github/claim-hold.yml` and its labels on GitHub, faked with nock.
import type nock from "nock";
import { exactBody, type GitHubRequestLog, githubScope, installationToken, isLog } from "./github-scope.js";

const rawYaml = { "content-type": "application/vnd.github.raw; charset=utf-8" };

/**
 * `GET /repos/{repo}/contents/.github/claim-hold.yml`: `yaml` (App-level), or `status` with `text`,
 * answered with the raw media type as GitHub does for `accept: application/vnd.github.raw+json`.
 */
export function nockGetConfigFile(log: GitHubRequestLog, repo: string, yaml: string): nock.Scope;
export function nockGetConfigFile(repo: string, status: number, text?: string): nock.Scope;
export function nockGetConfigFile(
  first: GitHubRequestLog | string,
  second: unknown,
  third?: string,
): nock.Scope {
  if (isLog(first))
    return githubScope({ log: first })
      .get(`/repos/${second as string}/contents/.github/claim-hold.yml`)
      .reply(200, third ?? "", rawYaml);
  const scope = githubScope({ token: installationToken })
    .matchHeader("accept", "application/vnd.github.raw+json")
    .get(`/repos/${first}/contents/.github/claim-hold.yml`);
  return second === 200
    ? scope.reply(200, third ?? "", rawYaml)
    : scope.reply(second as number, { message: "Not Found" });
}

/** Both config lookups answer 404: no `.github/claim-hold.yml` in the repository nor in the org's `.github`. */
export function nockNoConfigFile(log: GitHubRequestLog, repo: string) {
  const owner = repo.split("/")[0];
  githubScope({ log })
    .get(`/repos/${repo}/contents/.github/claim-hold.yml`)
    .reply(404, { message: "Not Found" });
  return githubScope({ log })
    .get(`/repos/${owner}/.github/contents/.github/claim-hold.yml`)
    .reply(404, { message: "Not Found" });
}

/** `GET /repos/{repo}/labels/{name}`. */
export function nockGetLabel(repo: string, name: string, status: number, body: unknown = {}): nock.Scope {
  return githubScope({ token: installationToken })
    .get(`/repos/${repo}/labels/${encodeURIComponent(name)}`)
    .reply(status, body as nock.Body);
}

/** `POST /repos/{repo}/labels` with exactly `label`. */
export function nockCreateLabel(
  repo: string,
  label: { name: string; color: string; description: string },
  status: number,
  body: unknown,
): nock.Scope {
  return githubScope({ token: installationToken })
    .post(`/repos/${repo}/labels`, exactBody(label))
    .reply(status, body as nock.Body);
}
