// The pure part of a claim: from the subject's snapshot, its claim marker and the request, a plan or a refusal.
import type { Actor, ClaimRecord } from "../../domain/claim.js";
import { subjectName } from "../../domain/claim.js";
import { isAgentBranch, ruleOnClaimBranch } from "../../domain/trust.js";
import type { ClaimCommentEvidence, SubjectSnapshot } from "../../providers/assignment-provider.js";
import type { ClaimOutcome as StoreClaimOutcome } from "../../providers/liveness-store.js";
import { type ClaimRequest, holderBody } from "../outcomes.js";
import { markerHolds } from "../recovery/restore-from-comments.js";
import type { Refusal } from "../refusals.js";

/** What the claim writes to the store, once GitHub's side allows it. */
export interface ClaimPlan {
  actor: Actor;
  branch: string;
  /** Whether the claim's assignment is the App's to remove (the claimant did not assign itself). */
  appAssigned: boolean;
}

export type ClaimDecision = { kind: "refused"; refusal: Refusal } | { kind: "plan"; plan: ClaimPlan };

/** The branch name the App proposes: the issue's title as a slug. */
export function slugOf(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40)
      .replace(/-+$/, "") || "work"
  );
}

/** A subject that cannot be claimed at all, before anything else is read: no such issue, or closed. */
export function unclaimable(
  request: Pick<ClaimRequest, "repo" | "issue">,
  snapshot: SubjectSnapshot | null,
): Refusal | null {
  if (!snapshot) return { code: "not_found", message: `${request.repo}#${request.issue} is not an issue.` };
  if (snapshot.state === "closed") {
    return { code: "closed", message: `${subjectName(snapshot.repo, snapshot.issue)} is closed.` };
  }
  return null;
}

export function claimStateUnknownRefusal(subject: string): Refusal {
  return {
    code: "claim_state_unknown",
    message: `${subject} shows a claim, but no claim comment of this App can be verified; nothing was changed. An operator can check the claim comments, or a maintainer can \`/reclaim release\` the issue.`,
  };
}

/**
 * The claim's plan from GitHub's side. `ghost`: the newest claim comment belongs to a claim that was
 * rolled back (its write landed, its answer and the check after it were lost); it stands for no
 * claim, and another login's assignment is not removed on its word. Its App-made assignment of the
 * claimant's own login is taken over as App-made, so the new claim's release removes what that
 * late write added.
 */
export function decideClaim(input: {
  request: Pick<ClaimRequest, "user" | "actor" | "branch">;
  snapshot: SubjectSnapshot;
  latest: ClaimCommentEvidence | undefined;
  ghost: boolean;
  /** The agent branch globs a claim's branch must match (docs/security.md#trust-model). */
  agentBranches: readonly string[];
  /** Lower-cased fleet logins among the assignees: a fleet login assigned by hand is not a person's hold. */
  fleetAssignees: ReadonlySet<string>;
}): ClaimDecision {
  const { request, snapshot, latest, ghost, agentBranches } = input;
  const subject = subjectName(snapshot.repo, snapshot.issue);
  if (request.branch !== undefined) {
    const ruling = ruleOnClaimBranch({
      branch: request.branch,
      patterns: agentBranches,
      claimant: request.user.login,
      openHeads: snapshot.openPullRequests.filter((pr) => pr.headRef === request.branch),
    });
    if (ruling.kind === "not_allowed") {
      return {
        kind: "refused",
        refusal: {
          code: "branch_not_allowed",
          message: `A claim's branch must match check.agentBranches (${agentBranches.join(", ")}); "${request.branch}" does not. Nothing was claimed.`,
          details: { branch: request.branch, agentBranches: [...agentBranches] },
        },
      };
    }
    if (ruling.kind === "taken") {
      return {
        kind: "refused",
        refusal: {
          code: "branch_taken",
          message: `The branch "${request.branch}" is the head of @${ruling.author}'s open pull request #${ruling.pullRequest}; name a branch of your own. Nothing was claimed.`,
          details: { branch: request.branch, pullRequest: ruling.pullRequest, author: ruling.author },
        },
      };
    }
  }
  const appMadeLogin =
    latest &&
    markerHolds(latest.marker) &&
    latest.marker.appAssigned &&
    (!ghost || latest.marker.actor.login === request.user.login)
      ? latest.marker.actor.login
      : null;
  const foreign = snapshot.assignees.filter((a) => a.login !== appMadeLogin);
  // A fleet login assigned by hand holds nothing; but a rolled-back claim's assignment of its login
  // may be the App's or a person's, and the App can neither claim over it nor remove it.
  const ghostLogin = ghost && latest ? latest.marker.actor.login.toLowerCase() : null;
  const holds = (login: string) =>
    !input.fleetAssignees.has(login.toLowerCase()) || login.toLowerCase() === ghostLogin;
  const people = foreign.filter((a) => a.login !== request.user.login && holds(a.login));
  if (people.length > 0) {
    return {
      kind: "refused",
      refusal: {
        code: "human_held",
        message: `${subject} is assigned to someone the App did not assign.`,
        details: {
          assignees: foreign.filter((a) => holds(a.login)).map((a) => a.login),
        },
      },
    };
  }
  // An earlier claim's branch off today's globs (named before they were enforced) is not resumed.
  const marked = latest && latest.marker.state !== "completed" ? latest.marker.branch : undefined;
  // Resumed only while no other login's open PR heads it (as the claim's read shows that branch).
  const taken = (branch: string) =>
    snapshot.openPullRequests.some(
      (pr) => pr.headRef === branch && pr.author.toLowerCase() !== request.user.login.toLowerCase(),
    );
  const resumable = marked && isAgentBranch(marked, agentBranches) && !taken(marked) ? marked : undefined;
  return {
    kind: "plan",
    plan: {
      actor: { kind: "agent", login: request.user.login, ...request.actor },
      branch:
        request.branch ??
        resumable ??
        `agent/${request.actor.sessionId}/${snapshot.issue}-${slugOf(snapshot.title)}`,
      appAssigned: !foreign.some((a) => a.login === request.user.login),
    },
  };
}

/** The store's refusal of a claim (someone holds the subject, or a cap is reached), for the claimant. */
export function storeRefusal(
  outcome: Extract<StoreClaimOutcome, { kind: "held" | "human_held" | "cap_reached" }>,
  subject: string,
  now: number,
): Refusal {
  switch (outcome.kind) {
    case "held":
      return {
        code: "held",
        message: `${subject} is held by another session.`,
        details: holderBody(outcome.current, now, outcome.takeoverPendingBy),
      };
    case "human_held":
      return {
        code: "human_held",
        message: `${subject} is held by @${outcome.current.actor.login}.`,
        details: { holder: outcome.current.actor, generation: outcome.current.generation },
      };
    case "cap_reached":
      return {
        code: "cap_reached",
        message: `This ${outcome.limit} already holds ${outcome.max} live claim(s).`,
        details: { limit: outcome.limit, max: outcome.max },
      };
  }
}

/** The refusal of a re-claim that a newer re-claim (or a release) overtook while it was written. */
export function overtakenRefusal(subject: string, current: ClaimRecord | null, now: number): Refusal {
  return {
    code: "held",
    message: `${subject} changed while this re-claim was written; claim again.`,
    details: current ? holderBody(current, now) : {},
  };
}
