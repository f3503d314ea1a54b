// The one read of a merge-group evaluation: the queue's entries (each PR's head and closing references) and the App's run on the group head.
import { APP_CHECK_RUN_FRAGMENT } from "./pull-request-check.js";

/**
 * `merge_group.checks_requested` names only the group's head and base. Which pull requests the group
 * holds is the merge queue's: the entry whose `headCommit` is the group's head, and every entry
 * ahead of it (a group holds the base branch, the entries ahead and its own PR). Each PR comes with
 * what its own verdict needs: head SHA and branch, author, and closing issue references as GitHub
 * links them. The check run is the App's latest `claim-hold` run on the group's head SHA (a
 * redelivered event finds the run it already wrote).
 */
export const MERGE_GROUP_CHECK_QUERY = /* GraphQL */ `
  query MergeGroupCheck(
    $owner: String!
    $name: String!
    $branch: String!
    $headSha: GitObjectID!
    $checkName: String!
    $appId: Int
  ) {
    repository(owner: $owner, name: $name) {
      mergeQueue(branch: $branch) {
        entries(first: 100) {
          nodes {
            position
            headCommit {
              oid
            }
            pullRequest {
              number
              headRefName
              headRefOid
              author {
                __typename
                login
              }
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

export interface MergeGroupCheckVariables {
  owner: string;
  name: string;
  /** The queue's base branch, without `refs/heads/`. */
  branch: string;
  headSha: string;
  checkName: string;
  appId: number | null;
}
