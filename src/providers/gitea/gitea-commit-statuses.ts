// The fence on Gitea: the `claim-hold` commit status on a PR head (Gitea has statuses, not check runs), read before it is written.
import {
  type CheckConclusion,
  type CommitStatusState,
  commitStatusDescriptionOf,
  commitStatusStateOf,
} from "../../domain/check-values.js";
import { type CheckRepoRef, checkRunName } from "../checks-provider.js";
import { splitRepo } from "../github/split-repo.js";
import type { GiteaClient } from "./gitea-client.js";
import type { RequestCounter } from "./gitea-routes.js";
import type { GiteaCommitStatus } from "./gitea-schemas.js";

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

/** True when `existing` already says what `desired` would: writing it again would change nothing. */
export function sameCommitStatus(existing: GiteaCommitStatus | null, desired: DesiredCommitStatus): boolean {
  return (
    existing !== null &&
    existing.status === desired.state &&
    (existing.description ?? "") === desired.description &&
    (existing.target_url ?? "") === (desired.target_url ?? "")
  );
}

export class GiteaCommitStatuses {
  constructor(private readonly client: GiteaClient) {}

  /** The newest `claim-hold` status on `sha`, or null. One request. */
  async find(ref: CheckRepoRef, sha: string, counter?: RequestCounter): Promise<GiteaCommitStatus | null> {
    const { owner, name } = splitRepo(ref.repo);
    const statuses = await this.client.listStatuses(owner, name, sha, counter);
    return statuses.find((status) => status.context === checkRunName) ?? null;
  }

  /** Writes the status unless the newest one already says it: one read, at most one write. */
  async set(
    ref: CheckRepoRef,
    sha: string,
    desired: DesiredCommitStatus,
  ): Promise<{ written: boolean; requests: number }> {
    const counter: RequestCounter = { requests: 0 };
    const existing = await this.find(ref, sha, counter);
    if (sameCommitStatus(existing, desired)) return { written: false, requests: counter.requests };
    const { owner, name } = splitRepo(ref.repo);
    await this.client.createStatus(owner, name, sha, desired, counter);
    return { written: true, requests: counter.requests };
  }
}
