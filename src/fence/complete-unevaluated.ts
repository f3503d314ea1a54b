// Never hang: an evaluation that failed completes the head's run all the same and is kept for the janitor to re-run.
import { defaultRepoConfig } from "../config/repo-config.js";
import { inert } from "../domain/inert-text.js";
import { agentBranchPatterns, agentMayBeInvolved, type OutagePullEvidence } from "../domain/trust.js";
import { StoreUnavailableError } from "../providers/liveness-store.js";
import { checkRunOf, decideCheckWrite } from "./check-run-plan.js";
import { unevaluatedVerdict } from "./check-verdict.js";
import type { MergeFenceDeps, Seen } from "./fence-types.js";
import { maxOutageReads, outageEvidenceOf } from "./outage-evidence.js";
import type { UnfinishedCheck, UnfinishedChecks } from "./unfinished-checks.js";

/**
 * Never hang (docs/reference/github-surfaces.md#the-claim-hold-check-run): an evaluation that
 * failed completes the head's run all the same, with a conclusion and a summary that say what
 * happened (unevaluatedVerdict), and is remembered so the janitor re-runs it. Writing that run may
 * fail too (GitHub down): then only the retry is left.
 */
export async function completeUnevaluated(
  deps: MergeFenceDeps,
  unfinished: UnfinishedChecks,
  ref: { installationId: number; repo: string },
  seen: Seen,
  error: unknown,
  check: UnfinishedCheck,
): Promise<void> {
  const { checks, configs, log } = deps;
  const config = configs.peek(ref.installationId, ref.repo) ?? defaultRepoConfig;
  const patterns = agentBranchPatterns(config.check);
  // Fail closed on evidence: `neutral` only where GitHub's answer shows no agent claim involved.
  const pulls = seen.pullRequests.slice(0, maxOutageReads);
  const evidence: OutagePullEvidence[] = [];
  for (const pr of pulls) {
    evidence.push(await outageEvidenceOf(deps, { ...ref, repoId: check.repoId }, pr, config, patterns));
  }
  const agentInvolved = seen.pullRequests.length > maxOutageReads || agentMayBeInvolved(evidence, patterns);
  const cause = error instanceof StoreUnavailableError ? "store-unavailable" : "error";
  const message = error instanceof Error ? error.message : String(error);
  const desired = checkRunOf(
    unevaluatedVerdict({ cause, agentInvolved, detail: inert(message, { max: 300 }) }),
    { subjects: [] },
  );
  const failure = { repo: ref.repo, headSha: check.headSha, cause, conclusion: desired.conclusion };
  try {
    const write =
      seen.existing === undefined ? { kind: "create" as const } : decideCheckWrite(seen.existing, desired);
    if (write.kind === "create") await checks.create(ref, check.headSha, desired);
    if (write.kind === "update") await checks.update(ref, { id: write.id, headSha: check.headSha }, desired);
    log.error(
      { ...failure, err: error },
      "claim-hold check could not be evaluated: completed as such, to be re-run",
    );
  } catch (writeError) {
    log.error(
      { ...failure, err: error, writeError },
      "claim-hold check could not be evaluated nor completed: left to the retry",
    );
  }
  await unfinished.remember(check);
}

/** What a retry of a PR's evaluation needs. */
export function pullCheckOf(
  installationId: number,
  repo: string,
  repoId: number,
  pr: { number: number; headSha: string },
  at: number,
): Extract<UnfinishedCheck, { kind: "pull" }> {
  return { kind: "pull", installationId, repo, repoId, number: pr.number, headSha: pr.headSha, at };
}
