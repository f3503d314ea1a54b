// One page of a repository's open issues with the claim evidence of each (inventory and reconcile).
import { CLAIM_ISSUE_FRAGMENTS, type ClaimIssueNode } from "./subject-status.js";

/**
 * Most recently updated first. `labels` narrows to issues carrying any of them (reconcile asks for
 * the managed labels); null lists all open issues (the inventory filters assigned/labelled ones).
 * Comments are bounded to the last 20: a current claim comment is among an issue's latest.
 */
export const OPEN_ISSUES_QUERY = /* GraphQL */ `
  query OpenIssues($owner: String!, $name: String!, $first: Int!, $after: String, $labels: [String!]) {
    repository(owner: $owner, name: $name) {
      databaseId
      nameWithOwner
      issues(first: $first, after: $after, states: [OPEN], labels: $labels, orderBy: { field: UPDATED_AT, direction: DESC }) {
        pageInfo {
          hasNextPage
          endCursor
        }
        nodes {
          ...ClaimIssueFields
          comments(last: 20) {
            ...ClaimCommentNodes
          }
        }
      }
    }
  }
  ${CLAIM_ISSUE_FRAGMENTS}
`;

export interface OpenIssuesVariables {
  owner: string;
  name: string;
  first: number;
  after: string | null;
  labels: string[] | null;
}

export interface OpenIssuesResponse {
  repository: {
    databaseId: number;
    nameWithOwner: string;
    issues: {
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
      nodes: (ClaimIssueNode | null)[] | null;
    };
  } | null;
}
