// Steps 2–4 of a PR head's evaluation: the store's evidence of its linked subjects, here and in other repositories, and the verdict.
import type { RepoConfig } from "../config/repo-config.js";
import { type ClaimRecord, type SubjectKey, subjectName } from "../domain/claim.js";
import { agentBranchPatterns, branchMayLink } from "../domain/trust.js";
import type { ForeignIssue } from "../providers/checks-provider.js";
import type { FenceEvidence, IndexedPullRequest } from "../providers/fence-store.js";
import { authorKindOf, claimsOf, linkedSubjectOf } from "./check-run-plan.js";
import { decideCheck } from "./check-verdict.js";
import { unfencedNote } from "./cross-links.js";
import type { MergeFenceDeps } from "./fence-types.js";
import { trustOf } from "./link-pull-request.js";
import type { SubjectRecovery } from "./subject-recovery.js";

type DecideDeps = Pick<MergeFenceDeps, "stores" | "fences" | "now" | "configs" | "fleet">;

/** The verdict of a PR once what the store lost of its linked subjects is read back from GitHub. */
export async function recoverAndDecide(
  deps: DecideDeps,
  recovery: SubjectRecovery,
  installationId: number,
  repo: string,
  repoId: number,
  pr: IndexedPullRequest,
) {
  const unknown = await recovery.linked(installationId, repo, repoId, pr);
  const unknownForeign = await recovery.foreign(installationId, pr);
  return decidePullRequest(deps, installationId, repo, repoId, pr, undefined, unknown, unknownForeign);
}

/**
 * The verdict the store's evidence gives a PR head, its linked subjects as the check shows them,
 * the evidence read per subject and the other repositories' issues it closes that this
 * installation holds claims on. `unknown`/`unknownForeign`: subjects GitHub shows claimed without a
 * marker to explain it (they fail closed).
 */
export async function decidePullRequest(
  deps: DecideDeps,
  installationId: number,
  repo: string,
  repoId: number,
  pr: IndexedPullRequest,
  knownConfig?: RepoConfig,
  unknown: ReadonlySet<number> = new Set(),
  unknownForeign: ReadonlySet<string> = new Set(),
) {
  const { stores, fences, now: clock } = deps;
  const trust = await trustOf(deps, installationId, repo, pr.author);
  const config = knownConfig ?? trust.config;
  const mayLink = branchMayLink({
    headRef: pr.headRef,
    patterns: trust.patterns,
    authorFleet: trust.authorFleet,
  });
  const now = clock();
  // A person's PR is linked through its branch only while that branch is a live claim's: an ended
  // claim's branch name alone never links it (docs/security.md#trust-model). A fleet login's
  // always is: a superseded holder's PR must meet its successor.
  const branchLinks = (record: ClaimRecord | null) =>
    mayLink && (trust.authorFleet || (record?.state === "active" && record.branch === pr.headRef));
  const read = await Promise.all(
    pr.linked.map(async (issue) => {
      const key: SubjectKey = { installationId, repoId, issue };
      const record = await stores.claims.get(key);
      const current =
        record?.tokenDigest !== undefined
          ? { generation: record.generation, tokenDigest: record.tokenDigest }
          : undefined;
      const found = await fences.evidence(key, pr.headSha, now, current);
      return { issue, record, found };
    }),
  );
  const evidence = read.filter(
    ({ issue, record }) => pr.closes.includes(issue) || unknown.has(issue) || branchLinks(record),
  );
  const subjects = evidence.map(({ issue, record, found }) => ({
    ...linkedSubjectOf(subjectName(repo, issue), record, found, branchLinks(record) ? pr.headRef : null),
    ...(unknown.has(issue) ? { stateUnknown: true } : {}),
  }));
  // Issues of other repositories it closes: fenced like its own where this installation holds a
  // claim record (GitHub links them the same way); branch names are per repository, so only the
  // closing reference links them.
  const foreign = await foreignEvidence(deps, installationId, pr, now, unknownForeign);
  subjects.push(
    ...foreign.held.map(({ ref, record, found }) =>
      linkedSubjectOf(subjectName(ref.repo, ref.issue), record, found, null),
    ),
    // Invariant 12 across repositories: a claim GitHub shows but no marker explains fails closed.
    ...foreign.unknown.map((ref) => ({
      subject: subjectName(ref.repo, ref.issue),
      record: null,
      everAgentClaimed: true,
      branchGenerations: [],
      attestedGenerations: [],
      stateUnknown: true,
    })),
  );
  const allClaims = [...evidence, ...foreign.held].flatMap(({ record, found }) => claimsOf(found, record));
  const decided = decideCheck({
    pullRequest: {
      number: pr.number,
      authorKind: trust.authorFleet ? "agent" : authorKindOf(pr.author, allClaims),
      headRef: pr.headRef,
      headSha: pr.headSha,
    },
    subjects,
    requireAttestation: config.check.requireAttestation,
    agentBranches: agentBranchPatterns(config.check),
  });
  const verdict = foreign.unheld.length
    ? { ...decided, text: `${decided.text}\n\n${unfencedNote(foreign.unheld)}` }
    : decided;
  return { verdict, subjects, evidence, foreign: foreign.held.map(({ ref }) => ref) };
}

/** The store's evidence of the other repositories' issues a PR closes; `unheld`: those it has no record of. */
async function foreignEvidence(
  deps: Pick<MergeFenceDeps, "stores" | "fences">,
  installationId: number,
  pr: IndexedPullRequest,
  now: number,
  unknownForeign: ReadonlySet<string>,
) {
  const { stores, fences } = deps;
  const held: { ref: ForeignIssue; record: ClaimRecord; found: FenceEvidence }[] = [];
  const unheld: ForeignIssue[] = [];
  const unknown: ForeignIssue[] = [];
  for (const ref of pr.elsewhere ?? []) {
    const key: SubjectKey = { installationId, repoId: ref.repoId, issue: ref.issue };
    const record = await stores.claims.get(key);
    if (!record) {
      (unknownForeign.has(`${ref.repoId}#${ref.issue}`) ? unknown : unheld).push(ref);
      continue;
    }
    const current =
      record.tokenDigest !== undefined
        ? { generation: record.generation, tokenDigest: record.tokenDigest }
        : undefined;
    held.push({ ref, record, found: await fences.evidence(key, pr.headSha, now, current) });
  }
  return { held, unheld, unknown };
}
