// The Gitea client against Gitea's own API description (test/fixtures/gitea: swagger v1 routes via gitea-js): no invented route or field.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fillPath, giteaRoutes } from "../../src/providers/gitea/gitea-routes.js";

interface Contract {
  source: string;
  basePath: string;
  routes: { operationId: string; method: string; path: string }[];
  definitions: Record<string, string[]>;
}
const contract = JSON.parse(
  readFileSync(new URL("../fixtures/gitea/gitea-api-contract.json", import.meta.url), "utf8"),
) as Contract;

/** The fields each call sends, by the definition Gitea's swagger gives its body. */
const sentBodies: Record<string, { definition: string; fields: string[] }> = {
  "edit-issue": { definition: "EditIssueOption", fields: ["assignees"] },
  "create-label": { definition: "CreateLabelOption", fields: ["name", "color", "description"] },
  "add-issue-labels": { definition: "IssueLabelsOption", fields: ["labels"] },
  "create-comment": { definition: "CreateIssueCommentOption", fields: ["body"] },
  "edit-comment": { definition: "EditIssueCommentOption", fields: ["body"] },
  "add-comment-reaction": { definition: "EditReactionOption", fields: ["content"] },
  "create-hook": {
    definition: "CreateHookOption",
    fields: ["type", "active", "events", "branch_filter", "config"],
  },
  "edit-hook": { definition: "EditHookOption", fields: ["active", "events", "branch_filter", "config"] },
  "create-status": {
    definition: "CreateStatusOption",
    fields: ["state", "context", "description", "target_url"],
  },
};

/** The fields the provider reads from each response's definition (the zod schemas in gitea-client.ts). */
const readFields: Record<string, string[]> = {
  User: ["id", "login"],
  RepoCollaboratorPermission: ["permission", "role_name"],
  Repository: ["id", "full_name", "permissions"],
  Issue: [
    "id",
    "number",
    "state",
    "assignees",
    "labels",
    "title",
    "updated_at",
    "comments",
    "pull_request",
    "repository",
  ],
  RepositoryMeta: ["id", "full_name"],
  Label: ["id", "name"],
  Comment: ["id", "body", "user"],
  CommitStatus: ["id", "context", "status", "description", "target_url", "creator"],
  PullRequest: ["number", "state", "title", "body", "user", "head"],
  PRBranchInfo: ["ref", "sha"],
  Commit: ["sha", "commit"],
  RepoCommit: ["message"],
  Hook: ["id", "type", "active", "events", "config", "branch_filter"],
  Permission: ["admin"],
  TimelineComment: ["id", "type", "body", "user", "assignee", "removed_assignee", "label"],
};

describe(`the Gitea client against ${contract.source}`, () => {
  it("holds Gitea's whole route list", () => {
    expect(contract.basePath).toBe("/api/v1");
    expect(contract.routes.length).toBeGreaterThan(300);
  });

  it.each(Object.entries(giteaRoutes))("%s: the route and method exist", (_kind, route) => {
    expect(contract.routes).toContainEqual(
      expect.objectContaining({ method: route.method, path: route.path }),
    );
  });

  it.each(Object.entries(sentBodies))("%s sends only fields of its body's definition", (kind, body) => {
    expect(Object.keys(giteaRoutes)).toContain(kind);
    expect(contract.definitions[body.definition]).toEqual(expect.arrayContaining(body.fields));
  });

  it.each(Object.entries(readFields))("reads only fields %s has", (definition, fields) => {
    expect(contract.definitions[definition]).toEqual(expect.arrayContaining(fields));
  });

  it("fills path parameters encoded, keeping a file path's slashes", () => {
    expect(
      fillPath(giteaRoutes["get-raw-file"].path, {
        owner: "o",
        repo: "r",
        filepath: ".gitea/claim-hold.yml",
      }),
    ).toBe("/repos/o/r/raw/.gitea/claim-hold.yml");
    expect(fillPath(giteaRoutes["get-permission"].path, { owner: "o", repo: "r", collaborator: "a/b" })).toBe(
      "/repos/o/r/collaborators/a%2Fb/permission",
    );
    expect(() => fillPath(giteaRoutes["get-issue"].path, { owner: "o", repo: "r" })).toThrow(
      "no value for {index}",
    );
  });
});
