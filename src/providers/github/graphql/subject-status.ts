// The one read of a subject: repository ids, the issue with assignees, labels and recent comments.

/**
 * Also reads the node ids of the two managed labels (aliased `claimedLabel`/`staleLabel`), so a
 * following transition can label the issue without a lookup of its own.
 */
export const SUBJECT_STATUS_QUERY = /* GraphQL */ `
  query SubjectStatus($owner: String!, $name: String!, $number: Int!, $claimedLabel: String!, $staleLabel: String!) {
    repository(owner: $owner, name: $name) {
      databaseId
      nameWithOwner
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
          id
          title
          state
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
          comments(last: 100) {
            nodes {
              id
              databaseId
              body
              viewerDidAuthor
            }
          }
        }
      }
    }
  }
`;

export interface SubjectStatusVariables {
  owner: string;
  name: string;
  number: number;
  claimedLabel: string;
  staleLabel: string;
}

export interface LabelNode {
  id: string;
  name: string;
}

export interface SubjectStatusResponse {
  repository: {
    databaseId: number;
    nameWithOwner: string;
    claimedLabel: LabelNode | null;
    staleLabel: LabelNode | null;
    issueOrPullRequest:
      | { __typename: "PullRequest" }
      | {
          __typename: "Issue";
          id: string;
          title: string;
          state: "OPEN" | "CLOSED";
          assignees: { nodes: ({ login: string; id: string } | null)[] | null };
          labels: { nodes: (LabelNode | null)[] | null } | null;
          comments: {
            nodes:
              | ({ id: string; databaseId: number | null; body: string; viewerDidAuthor: boolean } | null)[]
              | null;
          };
        }
      | null;
  } | null;
}
