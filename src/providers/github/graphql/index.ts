// Every GraphQL document the App can send, in one place, so a test can validate each against GitHub's schema.
import { allTransitionShapes, batchedTransitionDocument, transitionDocument } from "./apply-transition.js";
import { MERGE_GROUP_CHECK_QUERY } from "./merge-group-check.js";
import { OPEN_ISSUES_QUERY } from "./open-issues.js";
import { PULL_REQUEST_CHECK_QUERY } from "./pull-request-check.js";
import {
  QUEUE_ISSUE_CLOSING_PULL_REQUESTS_QUERY,
  QUEUE_OPEN_PULL_REQUESTS_QUERY,
} from "./queue-pull-requests.js";
import { RESOLVE_LABELS_QUERY } from "./resolve-labels.js";
import { SUBJECT_COMMENTS_QUERY, SUBJECT_STATUS_QUERY } from "./subject-status.js";

export * from "./apply-transition.js";
export * from "./merge-group-check.js";
export * from "./open-issues.js";
export * from "./pull-request-check.js";
export * from "./queue-pull-requests.js";
export * from "./resolve-labels.js";
export * from "./subject-status.js";

export interface NamedDocument {
  /** A label for test output, e.g. `ApplyTransition[assign,addLabels,edits=1]`. */
  name: string;
  document: string;
}

export function allDocuments(): NamedDocument[] {
  const transitions = allTransitionShapes().map((shape) => {
    const parts = Object.entries(shape)
      .filter(([, v]) => v !== false && v !== 0)
      .map(([k, v]) => (v === true ? k : `${k}=${v}`));
    return { name: `ApplyTransition[${parts.join(",")}]`, document: transitionDocument(shape) };
  });
  return [
    { name: "SubjectStatus", document: SUBJECT_STATUS_QUERY },
    { name: "SubjectComments", document: SUBJECT_COMMENTS_QUERY },
    { name: "ResolveLabels", document: RESOLVE_LABELS_QUERY },
    { name: "OpenIssues", document: OPEN_ISSUES_QUERY },
    { name: "PullRequestCheck", document: PULL_REQUEST_CHECK_QUERY },
    { name: "QueueOpenPullRequests", document: QUEUE_OPEN_PULL_REQUESTS_QUERY },
    { name: "QueueIssueClosingPullRequests", document: QUEUE_ISSUE_CLOSING_PULL_REQUESTS_QUERY },
    { name: "MergeGroupCheck", document: MERGE_GROUP_CHECK_QUERY },
    ...transitions,
    // Several subjects in one request (the provider batches at most 10): the smallest and largest shapes.
    {
      name: "BatchedApplyTransition",
      document: batchedTransitionDocument([
        ...allTransitionShapes().slice(0, 5),
        ...allTransitionShapes().slice(-5),
      ]),
    },
  ];
}
