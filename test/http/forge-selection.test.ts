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

describe("forgeOfRequest with several Gitea instances", () => {
  const instances = ["gitea.example.com", "127.0.0.1:3001", "example.org/forgejo"];
  const several =
    "This claim-hold serves several Gitea instances: name one in X-Claim-Hold-Forge, one of gitea:gitea.example.com, gitea:127.0.0.1:3001, gitea:example.org/forgejo.";
  it.each([
    ["no header, both: GitHub's", undefined, both, instances, { forge: "github" }],
    ["no header, Gitea alone: no instance chosen", undefined, giteaOnly, instances, { error: several }],
    ["a bare gitea: no instance chosen", "gitea", both, instances, { error: several }],
    [
      "an instance by its host",
      "gitea:gitea.example.com",
      both,
      instances,
      { forge: "gitea", instance: "gitea.example.com" },
    ],
    [
      "by host and port, any case, blanks and a trailing slash",
      " Gitea:127.0.0.1:3001/ ",
      giteaOnly,
      instances,
      { forge: "gitea", instance: "127.0.0.1:3001" },
    ],
    [
      "by host and path",
      "gitea:example.org/forgejo",
      both,
      instances,
      { forge: "gitea", instance: "example.org/forgejo" },
    ],
    [
      "the one instance by name",
      "gitea:gitea.example.com",
      both,
      ["gitea.example.com"],
      { forge: "gitea", instance: "gitea.example.com" },
    ],
    ["a bare gitea with one instance", "gitea", both, ["gitea.example.com"], { forge: "gitea" }],
    [
      "an instance not served",
      "gitea:other.example.com",
      both,
      instances,
      {
        error:
          "This claim-hold serves no forge named gitea:other.example.com: it serves github, gitea:gitea.example.com, gitea:127.0.0.1:3001, gitea:example.org/forgejo.",
      },
    ],
    [
      "a port not served",
      "gitea:127.0.0.1:3002",
      giteaOnly,
      instances,
      {
        error:
          "This claim-hold serves no forge named gitea:127.0.0.1:3002: it serves gitea:gitea.example.com, gitea:127.0.0.1:3001, gitea:example.org/forgejo.",
      },
    ],
    [
      "github with an instance",
      "github:gitea.example.com",
      both,
      instances,
      {
        error:
          "This claim-hold serves no forge named github:gitea.example.com: it serves github, gitea:gitea.example.com, gitea:127.0.0.1:3001, gitea:example.org/forgejo.",
      },
    ],
    [
      "an instance of an unknown forge",
      "gitlab:gitea.example.com",
      both,
      instances,
      { error: "Unknown forge in X-Claim-Hold-Forge: it is one of github, gitea." },
    ],
  ] as const)("%s", (_name, named, served, giteaInstances, expected) => {
    expect(forgeOfRequest(named, served, giteaInstances)).toEqual(expected);
  });

  it("answers a bare gitea with several as 422 invalid_request naming the choices", () => {
    let caught: unknown;
    try {
      requestForge("gitea", both, instances);
    } catch (error) {
      caught = error;
    }
    expect((caught as UserError).status).toBe(422);
    expect((caught as UserError).toBody()).toMatchObject({
      error: "invalid_request",
      field: "x-claim-hold-forge",
      message: several,
    });
  });
});
