// Which forge a request presenting a forge token is for: the X-Claim-Hold-Forge header against the forges the App serves.
import { describe, expect, it } from "vitest";
import type { Forge } from "../../src/domain/forge.js";
import { forgeOfRequest, requestForge } from "../../src/http/forge-selection.js";
import { UserError } from "../../src/http/user-error.js";

const githubOnly: [Forge, ...Forge[]] = ["github"];
const both: [Forge, ...Forge[]] = ["github", "gitea"];
const giteaOnly: [Forge, ...Forge[]] = ["gitea"];

describe("forgeOfRequest", () => {
  it.each([
    ["no header, GitHub alone", undefined, githubOnly, { forge: "github" }],
    ["no header, both: GitHub's", undefined, both, { forge: "github" }],
    ["no header, Gitea alone: Gitea's", undefined, giteaOnly, { forge: "gitea" }],
    ["gitea, both", "gitea", both, { forge: "gitea" }],
    ["any case and blanks", " Gitea ", both, { forge: "gitea" }],
    ["github named on a GitHub-only App", "github", githubOnly, { forge: "github" }],
    [
      "github on a Gitea-only App",
      "github",
      giteaOnly,
      { error: "This claim-hold serves gitea, not github." },
    ],
    [
      "gitea on a GitHub-only App",
      "gitea",
      githubOnly,
      { error: "This claim-hold serves github, not gitea." },
    ],
    [
      "an unknown forge",
      "gitlab",
      both,
      { error: "Unknown forge in X-Claim-Hold-Forge: it is one of github, gitea." },
    ],
    ["empty", "", both, { error: "Unknown forge in X-Claim-Hold-Forge: it is one of github, gitea." }],
  ] as const)("%s", (_name, named, served, expected) => {
    expect(forgeOfRequest(named, served)).toEqual(expected);
  });

  it("answers an error as 422 invalid_request naming the header", () => {
    let caught: unknown;
    try {
      requestForge("forgejo", both);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UserError);
    expect((caught as UserError).status).toBe(422);
    expect((caught as UserError).toBody()).toMatchObject({
      error: "invalid_request",
      field: "x-claim-hold-forge",
    });
  });
});
