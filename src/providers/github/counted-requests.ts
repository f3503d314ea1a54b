// How the GitHub providers count their requests: per call (for `AppliedWrite.requests`) and in total.
import type { GitHubRequestKind } from "./octokit-like.js";

/** Requests made by one provider call. */
export interface RequestCounter {
  requests: number;
}

/** Counts one request in `counter` (and the provider's total), reports its kind, then makes it. */
export type SendRequest = <T>(
  counter: RequestCounter,
  kind: GitHubRequestKind,
  call: () => Promise<T>,
) => Promise<T>;
