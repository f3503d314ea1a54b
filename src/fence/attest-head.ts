// `POST /leases/{id}/attest`: the current holder vouches for a head; the checks of the PRs on that head run again.
import { type ClaimRecord, parseLeaseId } from "../domain/claim.js";
import { refused } from "../lease/refusals.js";
import type { CrossLinks } from "./cross-links.js";
import { type MergeFenceDeps, noteOf } from "./fence-types.js";
import type { PullRequestCheck } from "./pull-request-check.js";

/** Records the attestation of `sha` under the lease's generation, then re-runs the checks of the PRs on it. */
export async function attestHead(
  deps: MergeFenceDeps,
  parts: { pulls: PullRequestCheck; crossLinks: CrossLinks },
  request: { leaseId: string; token: string; sha: string },
): Promise<Record<string, unknown>> {
  const { leaseId, token, sha } = request;
  const lease = parseLeaseId(leaseId);
  if (!lease) throw refused({ code: "not_found", message: "No such lease." });
  // Throws 409 superseded / 410 gone / 401 before anything is recorded.
  await deps.verifyLease(leaseId, token);
  const record = await deps.stores.claims.get(lease);
  // Recorded under the lease's own generation: should a takeover slip in after the gate, the
  // attestation belongs to a superseded generation and cannot pass the check.
  if (record?.generation === lease.generation) await deps.fences.recordClaim(lease, noteOf(record));
  // Named by its token: once a re-claim rotates that token out, the attestation no longer counts.
  await deps.fences.attest(lease, lease.generation, sha, deps.now(), storedDigest(deps, token, record));
  const prs = (await deps.fences.pullRequestsFor(lease)).filter((pr) => pr.headSha === sha);
  if (prs.length > 0 && record) {
    for (const pr of prs) await parts.pulls.evaluate(lease.installationId, record.repo, lease.repoId, pr);
  }
  // PRs of other repositories that close this subject, on the attested head.
  for (const link of await parts.crossLinks.of(lease)) {
    const pr = await deps.fences.pullRequest(
      { installationId: lease.installationId, repoId: link.repoId },
      link.number,
    );
    if (pr?.headSha === sha) await parts.pulls.evaluate(lease.installationId, link.repo, link.repoId, pr);
  }
  return { attested: true, sha, generation: lease.generation };
}

/** The token's digest as the record knows it (the current secret's when the record names neither). */
function storedDigest(
  deps: Pick<MergeFenceDeps, "tokenDigests">,
  token: string,
  record: ClaimRecord | null,
): string {
  const digests = deps.tokenDigests(token);
  return digests.find((d) => d === record?.tokenDigest) ?? digests[0]!;
}
