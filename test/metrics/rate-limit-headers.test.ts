// An installation's Octokit reports GitHub's x-ratelimit-remaining and x-ratelimit-limit (the rate-limit alert's ratio), on answers and errors alike.
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { installationOctokits } from "../../src/providers/github/installation-octokit.js";
import { githubApiUrl, testOctokit } from "../support/github-fake/github-scope.js";

afterEach(() => {
  nock.cleanAll();
});

function getRepository(status: number, remaining: string, limit: string) {
  return nock(githubApiUrl)
    .get("/repos/acme/widgets")
    .reply(status, status === 200 ? { id: 1001 } : { message: "Not Found" }, {
      "x-ratelimit-remaining": remaining,
      "x-ratelimit-limit": limit,
    });
}

describe("installationOctokits", () => {
  it("reports the remaining requests and the limit of each answer, a failed one too", async () => {
    const reported: { remaining: number[]; limit: number[] } = { remaining: [], limit: [] };
    const octokitFor = installationOctokits(
      async () => testOctokit(),
      (remaining) => reported.remaining.push(remaining),
      (limit) => reported.limit.push(limit),
    );
    const octokit = await octokitFor(7);
    const ok = getRepository(200, "4500", "5000");
    await octokit.request("GET /repos/{owner}/{repo}", { owner: "acme", repo: "widgets" });
    const missing = getRepository(404, "449", "15000");
    await expect(
      octokit.request("GET /repos/{owner}/{repo}", { owner: "acme", repo: "widgets" }),
    ).rejects.toThrow();
    expect(reported).toStrictEqual({ remaining: [4500, 449], limit: [5000, 15000] });
    expect(ok.isDone() && missing.isDone()).toBe(true);
  });
});
