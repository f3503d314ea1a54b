// GiteaIdentityProvider against Gitea's REST API (nock): the agent's user, collaborator permissions, visibility and config.
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigFileError, type RepoPermission } from "../../src/providers/assignment-provider.js";
import {
  GiteaIdentityProvider,
  giteaPermissionOf,
  positiveTtlMs,
} from "../../src/providers/gitea/gitea-identity-provider.js";
import {
  type GiteaRequestLog,
  giteaAgentToken,
  giteaClient,
  nockGetPermission,
  nockGetRawFile,
  nockGetRepository,
  nockGetUser,
} from "../support/gitea-fake.js";

afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

function provider() {
  let now = 1_000_000;
  const client = giteaClient();
  const identity = new GiteaIdentityProvider({ client, installationId: 9001, now: () => now });
  return { identity, client, advance: (ms: number) => (now += ms) };
}

describe("giteaPermissionOf", () => {
  const table: [string, RepoPermission][] = [
    ["owner", "admin"],
    ["admin", "admin"],
    ["write", "write"],
    ["read", "read"],
    ["none", "none"],
    ["maintain", "none"],
    ["", "none"],
  ];
  it.each(table)("Gitea's %j is %j", (permission, expected) => {
    expect(giteaPermissionOf({ permission, role_name: permission })).toBe(expected);
  });
});

describe("GiteaIdentityProvider", () => {
  it("identifies an agent's token with GET /api/v1/user (the login stands in for a node id), cached", async () => {
    const log: GiteaRequestLog = [];
    nockGetUser(log, giteaAgentToken, { login: "fleet-bot", id: 501 });
    const { identity, client } = provider();
    expect(await identity.userForToken(giteaAgentToken)).toEqual({
      login: "fleet-bot",
      id: 501,
      nodeId: "fleet-bot",
    });
    expect(await identity.userForToken(giteaAgentToken)).toEqual({
      login: "fleet-bot",
      id: 501,
      nodeId: "fleet-bot",
    });
    expect(client.requests).toBe(1);
    expect(log).toEqual(["GET /api/v1/user"]);
  });

  it("a token Gitea refuses (401) is no user; one that cannot be a header is not sent", async () => {
    const log: GiteaRequestLog = [];
    nockGetUser(log, "gitea-unknown-token", null);
    const { identity, client } = provider();
    expect(await identity.userForToken("gitea-unknown-token")).toBeNull();
    expect(await identity.userForToken("bad token\n")).toBeNull();
    expect(client.requests).toBe(1);
  });

  const permissions: [string, string | { status: number }, RepoPermission][] = [
    ["an owner", "owner", "admin"],
    ["a writer", "write", "write"],
    ["a reader", "read", "read"],
    ["a login Gitea does not know (404)", { status: 404 }, "none"],
  ];
  it.each(permissions)(
    "maps %s through the collaborator permission route",
    async (_name, answer, expected) => {
      const log: GiteaRequestLog = [];
      nockGetPermission(log, "fleet-bot", answer);
      const { identity } = provider();
      expect(await identity.permission(9001, "octo/widgets", "fleet-bot")).toBe(expected);
      expect(log).toEqual(["GET /api/v1/repos/octo/widgets/collaborators/fleet-bot/permission"]);
    },
  );

  it("a permission lookup the bot may not make (403) is an error, not `none`", async () => {
    nockGetPermission([], "fleet-bot", { status: 403 });
    const { identity } = provider();
    await expect(identity.permission(9001, "octo/widgets", "fleet-bot")).rejects.toThrow(
      "GET /repos/octo/widgets/collaborators/fleet-bot/permission: Gitea answered 403: permission lookup refused",
    );
  });

  it("a permission is asked again once its cache entry expires", async () => {
    nockGetPermission([], "fleet-bot", "write");
    nockGetPermission([], "fleet-bot", "read");
    const { identity, advance, client } = provider();
    expect(await identity.permission(9001, "octo/widgets", "fleet-bot")).toBe("write");
    advance(positiveTtlMs - 1);
    expect(await identity.permission(9001, "octo/widgets", "Fleet-Bot")).toBe("write");
    advance(2);
    expect(await identity.permission(9001, "octo/widgets", "fleet-bot")).toBe("read");
    expect(client.requests).toBe(2);
  });

  it("serves a repository the bot account can see under the configured installation, and no other", async () => {
    nockGetRepository([], true);
    const { identity } = provider();
    expect(await identity.installationFor("octo/widgets")).toBe(9001);
    nockGetRepository([], false);
    expect(await provider().identity.installationFor("octo/widgets")).toBeNull();
  });

  it("reads .gitea/claim-hold.yml, falling back to .github/claim-hold.yml", async () => {
    const log: GiteaRequestLog = [];
    nockGetRawFile(log, ".gitea/claim-hold.yml", null);
    nockGetRawFile(log, ".github/claim-hold.yml", "labels:\n  claimed: agent:claimed\n");
    const { identity } = provider();
    expect(await identity.repoConfig(9001, "octo/widgets")).toEqual({ labels: { claimed: "agent:claimed" } });
    expect(log).toEqual([
      "GET /api/v1/repos/octo/widgets/raw/.gitea/claim-hold.yml",
      "GET /api/v1/repos/octo/widgets/raw/.github/claim-hold.yml",
    ]);
  });

  it("a .gitea file wins; invalid YAML is a ConfigFileError with its line; no file at all is null", async () => {
    nockGetRawFile([], ".gitea/claim-hold.yml", "ttl: [\n");
    await expect(provider().identity.repoConfig(9001, "octo/widgets")).rejects.toBeInstanceOf(
      ConfigFileError,
    );
    nockGetRawFile([], ".gitea/claim-hold.yml", null);
    nockGetRawFile([], ".github/claim-hold.yml", null);
    expect(await provider().identity.repoConfig(9001, "octo/widgets")).toBeNull();
  });
});
