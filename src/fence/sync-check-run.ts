// The last step of every evaluation: the run written only when it differs from what GitHub shows.
import type { DesiredCheckRun, ExistingCheckRun } from "../providers/checks-provider.js";
import { decideCheckWrite } from "./check-run-plan.js";
import type { CheckChange, MergeFenceDeps } from "./fence-types.js";

/** Writes `desired` on the head unless `existing` already shows it, and says what changed. */
export async function syncCheckRun(
  deps: Pick<MergeFenceDeps, "checks" | "log">,
  ref: { installationId: number; repo: string },
  pr: { number: number; headSha: string },
  existing: ExistingCheckRun | null,
  desired: DesiredCheckRun,
): Promise<CheckChange> {
  const { checks } = deps;
  const write = decideCheckWrite(existing, desired);
  if (write.kind === "create") await checks.create(ref, pr.headSha, desired);
  if (write.kind === "update") await checks.update(ref, { id: write.id, headSha: pr.headSha }, desired);
  deps.log.info(
    {
      repo: ref.repo,
      pullRequest: pr.number,
      headSha: pr.headSha,
      conclusion: desired.conclusion,
      write: write.kind,
    },
    "claim-hold check evaluated",
  );
  return {
    repo: ref.repo,
    number: pr.number,
    headSha: pr.headSha,
    before: existing?.conclusion ?? null,
    after: desired.conclusion,
    written: write.kind !== "none",
  };
}
