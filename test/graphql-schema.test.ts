// Every GraphQL document the App can send validates against GitHub's published schema.
import { schema } from "@octokit/graphql-schema";
import { buildClientSchema, buildSchema, type GraphQLSchema, parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { allDocuments } from "../src/providers/github/graphql/index.js";

// The published IDL repeats two EnterpriseOwnerInfo fields, which strict SDL validation refuses; the
// introspection JSON (what the package's own `validate` uses) is checked too, so no schema
// shortcut can hide a wrong field.
const schemas: [string, GraphQLSchema][] = [
  ["idl", buildSchema(schema.idl, { assumeValidSDL: true })],
  ["introspection", buildClientSchema(schema.json as Parameters<typeof buildClientSchema>[0])],
];
const documents = allDocuments();

describe("GraphQL documents", () => {
  it("covers the reads and every transition shape", () => {
    const names = documents.map((d) => d.name);
    expect(names).toContain("SubjectStatus");
    expect(names).toContain("ResolveLabels");
    expect(names).toContain("OpenIssues");
    expect(names).toContain("PullRequestCheck");
    expect(names).toContain(
      "ApplyTransition[unassign,removeLabels,assign,addLabels,edits=4,claimComment,comments=4]",
    );
    expect(new Set(names).size).toBe(names.length);
    // 2^5 boolean combinations x 5 edit counts x 5 comment counts, minus the empty document.
    const transitions = documents.filter((d) => d.name.startsWith("ApplyTransition["));
    expect(transitions.length).toBe(32 * 25 - 1);
  });

  it.each(schemas)("validates each of them against @octokit/graphql-schema (%s)", (_, github) => {
    const failures = documents.flatMap(({ name, document }) =>
      validate(github, parse(document)).map((error) => `${name}: ${error.message}`),
    );
    expect(failures).toEqual([]);
  });

  it("would catch a wrong field", () => {
    const [, github] = schemas[0]!;
    const errors = validate(
      github,
      parse('mutation { addComment(input: {subjectId: "x", body: "y"}) { nope } }'),
    );
    expect(errors.map((e) => e.message)).toEqual(['Cannot query field "nope" on type "AddCommentPayload".']);
  });
});
