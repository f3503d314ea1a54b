// What a claim weighs besides the store: the fleet logins among the assignees, and the duplicate work (open blockers, someone else's open PR by a writer) that refuses a direct claim.
import type { RepoConfig } from "../../config/repo-config.js";
import { type SubjectKey, subjectName } from "../../domain/claim.js";
import type { SubjectSnapshot } from "../../providers/assignment-provider.js";
import { StoreUnavailableError } from "../../providers/liveness-store.js";
import type { QueueRepo } from "../../providers/queue-store.js";
import type { ClaimRequest } from "../outcomes.js";
import type { LeaseCoreDeps } from "../ports.js";
import { refused } from "../refusals.js";
import { duplicateWorkRefusal } from "./duplicate-work.js";

/** What of a claim's read of the subject the evidence is taken from. */
export interface ClaimEvidenceRead {
  request: ClaimRequest;
  key: SubjectKey;
  snapshot: SubjectSnapshot;
  config: RepoConfig;
}

/**
 * The open PRs that count (docs/security.md#trust-model): an author GitHub calls a collaborator or
 * member must also be able to write (a reader is a collaborator too) or run agents. The permission
 * read is cached 10 minutes and made only when such a PR closes the issue; one GitHub cannot
 * answer counts (an outage proves nothing).
 */
async function writersOnly(
  deps: LeaseCoreDeps,
  read: ClaimEvidenceRead,
): Promise<SubjectSnapshot["openPullRequests"]> {
  const { permissions, fleet } = deps;
  const { snapshot, request, config } = read;
  const counted: SubjectSnapshot["openPullRequests"] = [];
  for (const pr of snapshot.openPullRequests) {
    const proven =
      !pr.writeUnproven ||
      !permissions ||
      pr.author.toLowerCase() === request.user.login.toLowerCase() ||
      (await fleet?.isFleet(request.installationId, { login: pr.author, bot: false }, config)) ||
      (await permissions.stillAllowed(request.installationId, snapshot.repo, pr.author));
    if (proven) counted.push(pr);
  }
  return counted;
}

/** Assignees (other than the claimant) that are fleet logins: read only when someone else is assigned. */
export async function fleetAssigneesOf(deps: LeaseCoreDeps, read: ClaimEvidenceRead): Promise<Set<string>> {
  const { fleet } = deps;
  const fleetLogins = new Set<string>();
  if (!fleet) return fleetLogins;
  const me = read.request.user.login.toLowerCase();
  for (const assignee of read.snapshot.assignees) {
    const login = assignee.login.toLowerCase();
    if (login === me) continue;
    // GitHub names an App's account `<slug>[bot]` wherever it shows its login.
    const account = { login: assignee.login, bot: login.endsWith("[bot]") };
    if (await fleet.isFleet(read.key.installationId, account, read.config, read.snapshot.claimComments))
      fleetLogins.add(login);
  }
  return fleetLogins;
}

/**
 * A direct claim is refused when open blockers are indexed or someone else's open PR already
 * closes the issue (docs/reference/http-api.md#post-apiv1claims--claim-re-claim-or-take-over).
 */
export async function refuseDuplicateWork(deps: LeaseCoreDeps, read: ClaimEvidenceRead): Promise<void> {
  const { request, snapshot } = read;
  const repo = { installationId: request.installationId, repoId: snapshot.repoId, repo: snapshot.repo };
  const blockers = request.ignoreBlockers ? [] : await blockersOf(deps, repo, snapshot.issue, read.config);
  const counted = await writersOnly(deps, read);
  const refusal = duplicateWorkRefusal({
    request,
    snapshot: { ...snapshot, openPullRequests: counted },
    blockers,
  });
  if (refusal) throw refused(refusal);
}

/** Open blockers: current ones when the index can make them so, else the index's. */
async function blockersOf(
  deps: LeaseCoreDeps,
  repo: QueueRepo,
  issue: number,
  config: RepoConfig,
): Promise<string[]> {
  const { blockers, candidates } = deps;
  try {
    if (blockers) return await blockers.of(repo, issue, config.queue.maxIndexAge);
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    // Blockers order work; they fence nothing. GitHub's silence is logged, and the index decides.
    deps.log.warn(
      { subject: subjectName(repo.repo, issue), err: error },
      "open blockers not read from GitHub; the candidate index decides",
    );
  }
  return (await candidates?.candidate(repo, issue))?.blockers ?? [];
}
