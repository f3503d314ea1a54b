// The closing pull requests the candidate index keeps: a repository's open PRs with the issues each closes (the refresh), and one issue's (a reopened issue).
import { STANDING_PULL_REQUEST } from "./subject-status.js";

/** The closing PRs' fields: the same standing evidence a claim's read asks for. */
const CLOSING_PULL_REQUEST_FIELDS = STANDING_PULL_REQUEST;

/** One page of a repository's open pull requests, each with the issues GitHub links it to close (the refresh). */
export const QUEUE_OPEN_PULL_REQUESTS_QUERY = /* GraphQL */ `
  query QueueOpenPullRequests($owner: String!, $name: String!, $first: Int!, $after: String) {
    repository(owner: $owner, name: $name) {
      pullRequests(first: $first, after: $after, states: [OPEN]) {
        pageInfo {
          hasNextPage
          endCursor
        }
        nodes {
          ...StandingPullRequest
          closingIssuesReferences(first: 25) {
            nodes {
              number
              repository {
                databaseId
              }
            }
          }
        }
      }
    }
  }
  ${CLOSING_PULL_REQUEST_FIELDS}
`;

export interface QueueOpenPullRequestsVariables {
  owner: string;
  name: string;
  first: number;
  after: string | null;
}

export interface QueueClosingPullRequestNode {
  number: number;
  headRefName: string;
  isCrossRepository?: boolean;
  authorAssociation?: string;
  author: { login: string; __typename?: string } | null;
}

export interface QueueOpenPullRequestsResponse {
  repository: {
    pullRequests: {
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
      nodes:
        | (
            | (QueueClosingPullRequestNode & {
                closingIssuesReferences: {
                  nodes: ({ number: number; repository: { databaseId: number | null } } | null)[] | null;
                } | null;
              })
            | null
          )[]
        | null;
    };
  } | null;
}

/** One issue's open closing pull requests (an issue reopened). */
export const QUEUE_ISSUE_CLOSING_PULL_REQUESTS_QUERY = /* GraphQL */ `
  query QueueIssueClosingPullRequests($owner: String!, $name: String!, $number: Int!) {
    repository(owner: $owner, name: $name) {
      issue(number: $number) {
        closedByPullRequestsReferences(first: 25, includeClosedPrs: false) {
          nodes {
            ...StandingPullRequest
          }
        }
      }
    }
  }
  ${CLOSING_PULL_REQUEST_FIELDS}
`;

export interface QueueIssueClosingPullRequestsResponse {
  repository: {
    issue: {
      closedByPullRequestsReferences: { nodes: (QueueClosingPullRequestNode | null)[] | null } | null;
    } | null;
  } | null;
}
