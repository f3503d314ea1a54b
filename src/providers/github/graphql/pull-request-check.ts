// The one read of a check evaluation: the PR's closing issue references (as GitHub links them) and the App's check run on its head.

/**
 * `closingIssuesReferences` is GitHub's own linking: closing keywords in any form (`#n`,
 * `owner/repo#n`, issue URLs) and issues linked by hand in the Development sidebar
 * (`userLinkedOnly: false`, the default, keeps both). The check run is the latest `claim-hold` run
 * of the App's check suites on exactly `headSha` (the PR may have moved on since the event).
 */
/** The App's latest run of one check on a commit: shared by the PR head's read and the merge group's. */
export const APP_CHECK_RUN_FRAGMENT = /* GraphQL */ `
  fragment AppCheckRunOnCommit on Commit {
    checkSuites(first: 20, filterBy: { appId: $appId }) {
      nodes {
        app {
          databaseId
        }
        checkRuns(first: 1, filterBy: { checkName: $checkName, checkType: LATEST }) {
          nodes {
            databaseId
            name
            conclusion
            title
            summary
            text
          }
        }
      }
    }
  }
`;

export const PULL_REQUEST_CHECK_QUERY = /* GraphQL */ `
  query PullRequestCheck(
    $owner: String!
    $name: String!
    $number: Int!
    $headSha: GitObjectID!
    $checkName: String!
    $appId: Int
  ) {
    repository(owner: $owner, name: $name) {
      pullRequest(number: $number) {
        closingIssuesReferences(first: 50) {
          nodes {
            number
            repository {
              databaseId
              nameWithOwner
            }
          }
        }
      }
      object(oid: $headSha) {
        __typename
        ...AppCheckRunOnCommit
      }
    }
  }
  ${APP_CHECK_RUN_FRAGMENT}
`;

export interface PullRequestCheckVariables {
  owner: string;
  name: string;
  number: number;
  headSha: string;
  checkName: string;
  appId: number | null;
}

export interface PullRequestCheckRunNode {
  databaseId: number | null;
  name: string;
  /** GitHub's `CheckConclusionState` (`SUCCESS`, `FAILURE`, …), null while a run is not completed. */
  conclusion: string | null;
  title: string | null;
  summary: string | null;
  text: string | null;
}

export interface PullRequestCheckResponse {
  repository: {
    pullRequest: {
      closingIssuesReferences: {
        nodes: ({ number: number; repository: { databaseId: number | null } } | null)[] | null;
      } | null;
    } | null;
    object: {
      __typename: string;
      checkSuites?: {
        nodes:
          | ({
              app: { databaseId: number | null } | null;
              checkRuns: { nodes: (PullRequestCheckRunNode | null)[] | null } | null;
            } | null)[]
          | null;
      } | null;
    } | null;
  } | null;
}
