// GitHubInstallationSource: `GET /app/installations` with the App's JWT, every page, faked by nock at the HTTP layer.
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { GitHubInstallationSource } from "../src/providers/github/github-installation-source.js";
import { appJwt, githubApiUrl, testOctokit } from "./support/github-fake/index.js";

afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

/** One page of the App's installations, asked for with the App's token (never an installation's). */
function mockListAppInstallationsPage(page: number, ids: number[]) {
  return nock(githubApiUrl)
    .matchHeader("authorization", `token ${appJwt}`)
    .get("/app/installations")
    .query({ per_page: "100", page: String(page) })
    .reply(
      200,
      ids.map((id) => ({ id, account: { login: `org-${id}` }, app_id: 1 })),
    );
}

function source() {
  const kinds: string[] = [];
  const installations = new GitHubInstallationSource({
    appOctokit: async () => testOctokit(appJwt),
    onRequest: (kind) => kinds.push(kind),
  });
  return { installations, kinds };
}

describe("GitHubInstallationSource", () => {
  it("reads every page of 100 until a short page, ids ascending", async () => {
    const first = Array.from({ length: 100 }, (_, i) => 1000 - i);
    mockListAppInstallationsPage(1, first);
    mockListAppInstallationsPage(2, [7]);
    const { installations, kinds } = source();
    const ids = await installations.listInstallations();
    expect(ids).toHaveLength(101);
    expect(ids.slice(0, 3)).toEqual([7, 901, 902]);
    expect(ids.at(-1)).toBe(1000);
    expect(kinds).toEqual(["list-installations", "list-installations"]);
  });

  it("an App without installations: one request, an empty list", async () => {
    mockListAppInstallationsPage(1, []);
    const { installations, kinds } = source();
    expect(await installations.listInstallations()).toEqual([]);
    expect(kinds).toEqual(["list-installations"]);
  });

  it("a refusal names the call and its page, and is not taken for an empty list", async () => {
    nock(githubApiUrl)
      .get("/app/installations")
      .query({ per_page: "100", page: "1" })
      .reply(401, { message: "A JSON web token could not be decoded" });
    const { installations } = source();
    await expect(installations.listInstallations()).rejects.toThrow(
      /^failed to list the App's installations \(page 1\): HTTP 401: A JSON web token could not be decoded/,
    );
  });

  it("reads one installation's account login with the App's token", async () => {
    nock(githubApiUrl)
      .matchHeader("authorization", `token ${appJwt}`)
      .get("/app/installations/1021")
      .reply(200, { id: 1021, account: { login: "octo-org", id: 9, type: "Organization" }, app_id: 1 });
    const { installations, kinds } = source();
    expect(await installations.accountLogin(1021)).toBe("octo-org");
    expect(kinds).toEqual(["installation-account"]);
  });

  it("a refused account read names the installation", async () => {
    nock(githubApiUrl).get("/app/installations/1021").reply(404, { message: "Not Found" });
    const { installations } = source();
    await expect(installations.accountLogin(1021)).rejects.toThrow(
      /^failed to read installation 1021's account: HTTP 404: Not Found/,
    );
  });
});
