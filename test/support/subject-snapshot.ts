// A subject snapshot as the GitHub provider returns it, for tests that build one by hand: an open issue, nothing on it.
import type { SubjectSnapshot } from "../../src/providers/assignment-provider.js";

export function subjectSnapshot(
  subject: Pick<SubjectSnapshot, "repoId" | "repo" | "issue"> & Partial<SubjectSnapshot>,
): SubjectSnapshot {
  return {
    nodeId: `I_${subject.issue}`,
    title: `Issue ${subject.issue}`,
    state: "open",
    assignees: [],
    labels: [],
    claimComments: [],
    rejectedMarkers: 0,
    rejectedAfterTrusted: 0,
    auditComments: 0,
    markerSearch: "complete",
    openPullRequests: [],
    branchCommittedAt: null,
    updatedAt: 0,
    ...subject,
  };
}
