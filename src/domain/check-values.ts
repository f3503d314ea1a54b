// The values the checks port and the merge fence share: a check run's conclusion, a merge queue entry.
import type { ForeignIssue } from "./claim.js";

export type CheckConclusion = "success" | "neutral" | "failure";

/** A merge queue entry as the group evaluation reads it. */
export interface QueueEntry {
  position: number;
  /** The head of the entry's merge group, once GitHub has built it. */
  groupHeadSha: string | null;
  pullRequest: {
    number: number;
    headSha: string;
    headRef: string;
    author: { login: string; bot: boolean };
    /** Closing issue references of the PR's own repository. */
    closes: number[];
    /** Closing references to issues of other repositories. */
    closesElsewhere?: ForeignIssue[];
  } | null;
}
