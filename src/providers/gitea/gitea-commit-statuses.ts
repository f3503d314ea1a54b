// The fence on Gitea: a check verdict as the `claim-hold` commit status of a PR head (Gitea has statuses, not check runs).
import {
  type CheckConclusion,
  type CommitStatusState,
  commitStatusDescriptionOf,
  commitStatusStateOf,
} from "../../domain/check-values.js";
import { checkRunName } from "../checks-provider.js";

/** A commit status as Gitea takes it (`CreateStatusOption`). */
export interface DesiredCommitStatus {
  state: CommitStatusState;
  context: string;
  description: string;
  target_url?: string;
}

export { maxStatusDescription } from "../../domain/check-values.js";

/**
 * A check verdict as a Gitea status: `neutral` passes (as a neutral check run does on GitHub),
 * `null` is an evaluation still running. The title is the description, shortened on one line, with
 * the run's `statusNote` (an invalid config file) kept whole after it.
 */
export function commitStatusOf(
  conclusion: CheckConclusion | null,
  title: string,
  detailsUrl?: string,
  statusNote?: string,
): DesiredCommitStatus {
  return {
    state: commitStatusStateOf(conclusion),
    context: checkRunName,
    description: commitStatusDescriptionOf(title, statusNote),
    ...(detailsUrl ? { target_url: detailsUrl } : {}),
  };
}
