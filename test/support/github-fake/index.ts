// GitHub faked with nock for tests, one helper per mocked call named after it (`nock<Call>`); App-level helpers take the request log first.
export * from "./check-runs.js";
export * from "./github-scope.js";
export * from "./identity.js";
export { type BoardComment, type BoardIssue, type BoardUser, IssueBoard } from "./issue-board.js";
export * from "./repository-config.js";
export * from "./subject-graphql.js";
