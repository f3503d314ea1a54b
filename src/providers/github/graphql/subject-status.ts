// The one read of a subject: repository ids, the issue with assignees, labels and recent comments.

/**
 * Also reads the node ids of the two managed labels (aliased `claimedLabel`/`staleLabel`), so a
 * following transition can label the issue without a lookup of its own.
 */
/** A page of comments with what recovery reads of each. */
export const CLAIM_COMMENT_NODES = /* GraphQL */ `
  fragment ClaimCommentNodes on IssueCommentConnection {
    pageInfo {
      hasPreviousPage
      startCursor
    }
    nodes {
      id
      databaseId
      body
      viewerDidAuthor
    }
  }
`;

/** An open PR with what its standing is judged by (docs/security.md#trust-model): author kind, association, head repository. */
export const STANDING_PULL_REQUEST = /* GraphQL */ `
  fragment StandingPullRequest on PullRequest {
    number
    headRefName
    isCrossRepository
    authorAssociation
    author {
      __typename
      login
    }
  }
`;

/** The issue fields every read of a subject needs: shared by the one-subject read and the listings. */
export const CLAIM_ISSUE_FRAGMENTS = /* GraphQL */ `
  fragment ClaimIssueFields on Issue {
    id
    number
    title
    state
    updatedAt
    closedByPullRequestsReferences(first: 10, includeClosedPrs: false) {
      nodes {
        ...StandingPullRequest
      }
    }
    assignees(first: 20) {
      nodes {
        login
        id
      }
    }
    labels(first: 50) {
      nodes {
        id
        name
      }
    }
  }
  ${CLAIM_COMMENT_NODES}
  ${STANDING_PULL_REQUEST}
`;

export const SUBJECT_STATUS_QUERY = /* GraphQL */ `
  query SubjectStatus(
    $owner: String!
    $name: String!
    $number: Int!
    $claimedLabel: String!
    $staleLabel: String!
    $branch: String!
    $qualifiedBranch: String!
    $withBranch: Boolean!
  ) {
    repository(owner: $owner, name: $name) {
      databaseId
      nameWithOwner
      branchPullRequests: pullRequests(headRefName: $branch, states: [OPEN], first: 5) @include(if: $withBranch) {
        nodes {
          ...StandingPullRequest
        }
      }
      branchRef: ref(qualifiedName: $qualifiedBranch) @include(if: $withBranch) {
        target {
          ... on Commit {
            committedDate
          }
        }
      }
      claimedLabel: label(name: $claimedLabel) {
        id
        name
      }
      staleLabel: label(name: $staleLabel) {
        id
        name
      }
      issueOrPullRequest(number: $number) {
        __typename
        ... on Issue {
          ...ClaimIssueFields
          comments(last: 100) {
            ...ClaimCommentNodes
          }
        }
      }
    }
  }
  ${CLAIM_ISSUE_FRAGMENTS}
`;

/**
 * Earlier comments of an issue, newest page first: recovery pages back through a long thread until
 * it meets the latest claim comment (invariant 12: no comment-count limit).
 */
export const SUBJECT_COMMENTS_QUERY = /* GraphQL */ `
  query SubjectComments($owner: String!, $name: String!, $number: Int!, $before: String!) {
    repository(owner: $owner, name: $name) {
      issue(number: $number) {
        comments(last: 100, before: $before) {
          ...ClaimCommentNodes
        }
      }
    }
  }
  ${CLAIM_COMMENT_NODES}
`;

export interface SubjectCommentsResponse {
  repository: { issue: { comments: ClaimIssueNode["comments"] } | null } | null;
}

export interface SubjectStatusVariables {
  owner: string;
  name: string;
  number: number;
  claimedLabel: string;
  staleLabel: string;
  /**
   * The claim's branch, when known: its open PRs and last commit are evidence of its derived state
   * (docs/reference/http-api.md#get-apiv1reposownerrepoclaimsstatelimit--inventory).
   */
  branch: string;
  qualifiedBranch: string;
  withBranch: boolean;
}

export interface PullRequestNode {
  number: number;
  headRefName: string;
  /** Absent only in hand-written answers; GitHub always sends them once asked. */
  isCrossRepository?: boolean;
  authorAssociation?: string;
  author: { login: string; __typename?: string } | null;
}

export interface LabelNode {
  id: string;
  name: string;
}

export interface SubjectStatusResponse {
  repository: {
    databaseId: number;
    nameWithOwner: string;
    branchPullRequests?: { nodes: (PullRequestNode | null)[] | null } | null;
    branchRef?: { target: { committedDate?: string } | null } | null;
    claimedLabel: LabelNode | null;
    staleLabel: LabelNode | null;
    issueOrPullRequest: { __typename: "PullRequest" } | ({ __typename: "Issue" } & ClaimIssueNode) | null;
  } | null;
}

/** An issue as `ClaimIssueFields` + `ClaimCommentNodes` return it. */
export interface ClaimIssueNode {
  id: string;
  number: number;
  title: string;
  state: "OPEN" | "CLOSED";
  updatedAt: string;
  closedByPullRequestsReferences: { nodes: (PullRequestNode | null)[] | null } | null;
  assignees: { nodes: ({ login: string; id: string } | null)[] | null };
  labels: { nodes: (LabelNode | null)[] | null } | null;
  comments: {
    pageInfo?: { hasPreviousPage: boolean; startCursor: string | null };
    nodes:
      | ({ id: string; databaseId: number | null; body: string; viewerDidAuthor: boolean } | null)[]
      | null;
  };
}
