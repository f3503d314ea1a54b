// Which GraphQL requests skip the write limiter: only documents whose every operation is a query.
import { Kind, type OperationDefinitionNode, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { allDocuments } from "../src/providers/github/graphql/index.js";
import { isGraphQLRead, isGraphQLReadRequest } from "../src/providers/github/is-graphql-read.js";

/** What GraphQL's own parser says: every operation of the document is a query. */
function parsedAsRead(document: string): boolean {
  const operations = parse(document).definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  return operations.length > 0 && operations.every((operation) => operation.operation === "query");
}

describe("isGraphQLRead", () => {
  it("agrees with GraphQL's parser on every document the App sends", () => {
    const documents = allDocuments();
    const disagreements = documents
      .filter(({ document }) => isGraphQLRead(document) !== parsedAsRead(document))
      .map(({ name }) => name);
    expect(disagreements).toEqual([]);
    const reads = documents.filter(({ document }) => isGraphQLRead(document)).map(({ name }) => name);
    expect(reads).toEqual([
      "SubjectStatus",
      "SubjectComments",
      "ResolveLabels",
      "OpenIssues",
      "PullRequestCheck",
      "QueueOpenPullRequests",
      "QueueIssueClosingPullRequests",
      "MergeGroupCheck",
    ]);
  });

  it.each([
    ["a named query", "query Q { viewer { login } }", true],
    ["the query shorthand", "{ viewer { login } }", true],
    ["a query after its fragment", "fragment F on User { login } query Q { viewer { ...F } }", true],
    [
      "a query with a field, argument and variable named mutation",
      'query Q($mutation: String) { mutation: node(id: "mutation") { id } }',
      true,
    ],
    [
      "a query with a default value holding a brace",
      'query Q($s: String = "{ mutation }") { viewer { login } }',
      true,
    ],
    ["a query with a comment naming a mutation", "# mutation M { x }\nquery Q { viewer { login } }", true],
    ["a query with a block string", 'query Q { node(id: """ a \\""" mutation { """) { id } }', true],
    ["a mutation", "mutation M { addComment(input: {}) { clientMutationId } }", false],
    ["an anonymous mutation", "mutation { addComment(input: {}) { clientMutationId } }", false],
    ["a subscription", "subscription S { x }", false],
    ["a query and a mutation in one document", "query Q { viewer { login } } mutation M { x }", false],
    [
      "a mutation after a string holding a comment sign",
      'query Q($s: String = "#") { a } mutation M { x }',
      false,
    ],
    ["unbalanced braces", "query Q { viewer { login }", false],
    ["no selection set", "query Q", false],
    ["nothing", "", false],
  ])("%s → read: %s", (_name, document, read) => {
    expect(isGraphQLRead(document)).toBe(read);
  });
});

describe("isGraphQLReadRequest", () => {
  const query = "query Q { viewer { login } }";
  it.each([
    ["a query as Octokit's hooks see it", { method: "POST", url: "/graphql", query }, true],
    ["a parsed query", { method: "POST", url: "https://api.github.com/graphql", body: { query } }, true],
    [
      "a query to GitHub Enterprise Server",
      { method: "POST", url: "https://ghe.example/api/graphql", query },
      true,
    ],
    ["a mutation", { method: "POST", url: "/graphql", query: "mutation M { x }" }, false],
    ["a REST write", { method: "POST", url: "/repos/o/r/labels", body: { query } }, false],
    ["no document", { method: "POST", url: "/graphql" }, false],
    ["a document that is not text", { method: "POST", url: "/graphql", query: 42 }, false],
  ])("%s → read: %s", (_name, options, read) => {
    expect(isGraphQLReadRequest(options)).toBe(read);
  });
});
