// The values the checks port and the merge fence share: a check run's conclusion, what a commit status shows of it, a merge queue entry.
import type { ForeignIssue } from "./claim.js";

export type CheckConclusion = "success" | "neutral" | "failure";

/** A commit status's state (Gitea, Forgejo): all a status shows of a conclusion, with its description. */
export type CommitStatusState = "pending" | "success" | "failure";

/** `neutral` passes as a neutral check run does on GitHub; `null` is an evaluation still running. */
export function commitStatusStateOf(conclusion: CheckConclusion | null): CommitStatusState {
  return conclusion === null ? "pending" : conclusion === "failure" ? "failure" : "success";
}

/** Gitea stores the description as text, but its UI shows one line: kept as short as GitHub's 140. */
export const maxStatusDescription = 140;

/**
 * A check's title as a status's description: one line, shortened. A `note` (a status has no
 * annotations: docs/reference/gitea-surfaces.md) is kept whole after the title, which is shortened
 * to make room for it.
 */
export function commitStatusDescriptionOf(title: string, note?: string): string {
  const line = title.replace(/\s+/g, " ").trim();
  const suffix = note ? ` · ${note.replace(/\s+/g, " ").trim()}`.slice(0, maxStatusDescription - 1) : "";
  const room = maxStatusDescription - suffix.length;
  return `${line.length > room ? `${line.slice(0, room - 1)}…` : line}${suffix}`;
}

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
