// The trust model (docs/security.md#trust-model): who runs agents, which branches claims may own, whose PR counts; pure.
import picomatch from "picomatch";

/** What the App can prove about an account, from GitHub and its own store. */
export interface AccountEvidence {
  login: string;
  /** GitHub says the account is a Bot (`type: "Bot"`, GraphQL `__typename: "Bot"`). */
  bot: boolean;
  /** The account held an agent claim through the API here (the store, or a signed claim marker). */
  learned: boolean;
  /** `agents.logins` of the repository's (or org's) config. */
  configured: readonly string[];
}

/**
 * A fleet login runs agents: a Bot, a login that held an agent claim through the API, or one the
 * config names. It never gets a person's protections (`/reclaim`, human-held, person's PR).
 */
export function isFleetLogin(account: AccountEvidence): boolean {
  if (account.bot || account.learned) return true;
  const login = account.login.toLowerCase();
  return account.configured.some((configured) => configured.toLowerCase() === login);
}

/** The branch globs agent claims may name: `check.agentBranches` and the older `agentBranchPrefix`. */
export function agentBranchPatterns(check: { agentBranches: readonly string[]; agentBranchPrefix: string }) {
  return [...new Set([...check.agentBranches, `${check.agentBranchPrefix}**`])];
}

const matchers = new Map<string, (branch: string) => boolean>();

/** Whether a branch name matches one of the agent branch globs (path globs: `agent/**` spans `/`). */
export function isAgentBranch(branch: string, patterns: readonly string[]): boolean {
  const id = JSON.stringify(patterns);
  let match = matchers.get(id);
  if (!match) {
    match = picomatch([...patterns], { dot: true });
    if (matchers.size > 100) matchers.clear();
    matchers.set(id, match);
  }
  return match(branch);
}

/** A claim's branch: inside the agent patterns, and not another login's open PR head. */
export type BranchRuling =
  | { kind: "allowed" }
  | { kind: "not_allowed"; patterns: readonly string[] }
  | { kind: "taken"; pullRequest: number; author: string };

export function ruleOnClaimBranch(input: {
  branch: string;
  patterns: readonly string[];
  claimant: string;
  /** Open PRs of the repository whose head is this branch (in the base repository). */
  openHeads: readonly { number: number; author: string }[];
}): BranchRuling {
  if (!isAgentBranch(input.branch, input.patterns)) return { kind: "not_allowed", patterns: input.patterns };
  const me = input.claimant.toLowerCase();
  const other = input.openHeads.find((pr) => pr.author.toLowerCase() !== me);
  return other ? { kind: "taken", pullRequest: other.number, author: other.author } : { kind: "allowed" };
}

/** What GitHub shows of an open PR's author and head, for its standing. */
export interface PullRequestEvidence {
  /** The author is a fleet login (isFleetLogin). */
  authorFleet: boolean;
  /** GitHub's `authorAssociation` is OWNER, MEMBER or COLLABORATOR (or the author's permission is write+). */
  authorCanWrite: boolean;
  /** The head branch lives in the base repository (`isCrossRepository: false`). */
  headInBase: boolean;
}

/**
 * An open PR counts (pr_open, queue skip, awaiting review) only when a fleet login or someone who
 * can write opened it from the base repository. Others are outsiders': listed, blocking nothing.
 */
export function pullRequestCounts(pr: PullRequestEvidence): boolean {
  return pr.headInBase && (pr.authorFleet || pr.authorCanWrite);
}

/** A repository permission that can push to the base repository: write, maintain or admin. */
export function permissionCanWrite(permission: "admin" | "maintain" | "write" | "triage" | "read" | "none") {
  return permission === "write" || permission === "maintain" || permission === "admin";
}

/** GitHub's author associations that mean a collaborator or member (who can push to the base repository). */
export function associationCanWrite(association: string | null | undefined): boolean {
  return association === "OWNER" || association === "MEMBER" || association === "COLLABORATOR";
}

/**
 * Whether a subject linked to a PR through its branch may judge it: only on an agent branch, or
 * when a fleet login authored it. A person's PR on any other branch is never judged by a claim,
 * whatever name a claim once gave its branch.
 */
export function branchMayLink(input: { headRef: string; patterns: readonly string[]; authorFleet: boolean }) {
  return input.authorFleet || isAgentBranch(input.headRef, input.patterns);
}

/** What GitHub showed of one linked issue while the claim store could not be read. */
export interface LinkedIssueEvidence {
  /** Carries one of the App's managed labels. */
  managedLabel: boolean;
  /** Shows a claim comment of this App (a verified marker, or App comments whose marker cannot be verified). */
  appClaimComment: boolean;
}

/** What an evaluation could still see of a PR when the store (or GitHub) did not answer. */
export interface OutagePullEvidence {
  author: { login: string; bot: boolean };
  /** A fleet login the process already knows (memory or config); the store cannot be asked now. */
  authorFleet: boolean;
  headRef: string;
  /** Its linked issues as GitHub showed them; null when GitHub's answer could not be read. */
  linked: LinkedIssueEvidence[] | null;
}

/**
 * Fail closed on evidence: an agent may be involved unless GitHub's answer shows none — no PR is
 * known, any PR is a fleet login's or on an agent branch, or any linked issue carries a managed
 * label or an App claim comment, or its linked issues could not be read.
 */
export function agentMayBeInvolved(
  pulls: readonly OutagePullEvidence[],
  patterns: readonly string[],
): boolean {
  if (pulls.length === 0) return true;
  return pulls.some(
    (pr) =>
      pr.author.bot ||
      pr.authorFleet ||
      isAgentBranch(pr.headRef, patterns) ||
      pr.linked === null ||
      pr.linked.some((issue) => issue.managedLabel || issue.appClaimComment),
  );
}

/**
 * Who acted on the forge (docs/security.md#trust-model): the App's own account, an account that
 * runs agents (a fleet login acting as a user, `isFleetLogin`), or a person.
 */
export type ActorKind = "app" | "fleet" | "person";

export function actorKindOf(evidence: { ownApp: boolean; fleet: boolean }): ActorKind {
  if (evidence.ownApp) return "app";
  return evidence.fleet ? "fleet" : "person";
}

/**
 * The acts the App takes as a person's, on GitHub and Gitea alike: taking the claimed label or the
 * App-made assignment off (a revoke), answering a needs-human ask (a reply or the label taken off),
 * resetting the failure breaker, `/reclaim`. Agents act through the API, so neither the App's own
 * writes nor a fleet login's count (docs/reference/github-surfaces.md, docs/reference/gitea-surfaces.md).
 */
export type PersonAct = "claim-removal" | "needs-human-answer" | "breaker-reset" | "reclaim";

export function countsAsPerson(kind: ActorKind, _act: PersonAct): boolean {
  return kind === "person";
}
