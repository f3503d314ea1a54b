// Decides the `claim-hold` check run of a PR head (rules 1–6 of docs/reference/github-surfaces.md#the-claim-hold-check-run) from its linked subjects; pure.
import type { CheckConclusion } from "../domain/check-values.js";
import type { Actor, ClaimRecord } from "../domain/claim.js";
import { describeActor } from "../domain/inert-text.js";
import { isAgentBranch } from "../domain/trust.js";

/** One subject linked to the PR (rule 1: a closing reference, or a claim naming the head branch). */
export interface LinkedSubject {
  /** `owner/name#number`. */
  subject: string;
  /** The store's current (or last) record; null when the store has none. */
  record: ClaimRecord | null;
  /** Whether any incarnation of this subject was ever an agent claim. */
  everAgentClaimed: boolean;
  /** Generations whose claims named the PR's head branch. */
  branchGenerations: number[];
  /** Generations whose holders attested the PR's head SHA. */
  attestedGenerations: number[];
  /** Holders of past generations, when known, so a verdict can name whom a successor superseded. */
  pastHolders?: { generation: number; actor: Actor }[];
  /** The store has no record and GitHub shows a claim no trusted marker explains (invariant 12). */
  stateUnknown?: boolean;
}

export interface CheckInput {
  pullRequest: {
    number: number;
    /** `agent` when the author is a fleet login (docs/security.md#trust-model). */
    authorKind: "human" | "agent";
    headRef: string;
    headSha: string;
  };
  subjects: LinkedSubject[];
  requireAttestation: boolean;
  /** The agent branch globs (`check.agentBranches` with the older prefix). */
  agentBranches: readonly string[];
}

export interface CheckSummaryRow {
  subject: string;
  holder: string;
  generation: number | null;
  state: string;
}

export interface CheckVerdict {
  conclusion: CheckConclusion;
  title: string;
  summaryRows: CheckSummaryRow[];
  /** Markdown: one explanation per linked subject, worst first. */
  text: string;
}

interface SubjectVerdict {
  conclusion: CheckConclusion;
  title: string;
  detail: string;
}

const severity: Record<CheckConclusion, number> = { success: 0, neutral: 1, failure: 2 };

/** Runtime and session id are the claimant's own words: rendered inert (invariant 11). The login is GitHub's. */
function describe(actor: Actor): string {
  return actor.kind === "human" ? `@${actor.login}` : `${describeActor(actor)} (@${actor.login})`;
}

function holderOf(record: ClaimRecord | null): string {
  if (!record) return "unknown";
  return record.state === "active" || record.state === "human" ? describe(record.actor) : "nobody";
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function judge(subject: LinkedSubject, input: CheckInput, agentBranch: boolean): SubjectVerdict {
  const { record, subject: name } = subject;
  const { headRef, headSha, authorKind } = input.pullRequest;
  const attest = `\`claim-hold attest ${headSha}\``;

  // Invariant 12: evidence of a claim that cannot be verified is never read as "no claim".
  if (subject.stateUnknown && !record) {
    return {
      conclusion: "failure",
      title: "Claim state unknown",
      detail: `${name}: the issue shows a claim, but no claim comment of this App can be verified, so the holder is unknown. A maintainer can \`/reclaim\` the issue to settle it.`,
    };
  }
  // Rule 2. A record naming an agent counts even if the caller's history flag missed it.
  if (!subject.everAgentClaimed && record?.actor.kind !== "agent") {
    return {
      conclusion: "success",
      title: "No agent claim involved",
      detail: `${name}: no agent claim involved.`,
    };
  }
  // Rule 3. Only the agent branch globs make a person's branch an agent's; a claim's name for it does not.
  if (authorKind === "human" && !agentBranch) return humanChangeVerdict(name, record);
  if (!record) {
    // The store lost the record and reconcile has not rebuilt it yet: no holder to compare with.
    // Fail closed only where attestation is required; the merge is the one point that must serialize.
    return input.requireAttestation
      ? {
          conclusion: "failure",
          title: "Claim record unavailable",
          detail: `${name}: the claim store has no record of the current holder; re-run this check once the janitor's reconcile has rebuilt it.`,
        }
      : {
          conclusion: "neutral",
          title: "Claim record unavailable",
          detail: `${name}: the claim store has no record of the current holder.`,
        };
  }
  const current = record.generation;

  // Rule 4.
  if (subject.attestedGenerations.includes(current)) {
    return {
      conclusion: "success",
      title: "Attested by the current holder",
      detail: `${name}: ${headSha.slice(0, 7)} is attested by generation ${current} (${describe(record.actor)}).`,
    };
  }
  // Rule 5.
  const oldAttestations = subject.attestedGenerations.filter((g) => g !== current);
  const branchIsOnlyOld =
    subject.branchGenerations.length > 0 && !subject.branchGenerations.includes(current);
  if (oldAttestations.length > 0 || branchIsOnlyOld) {
    return supersededVerdict(subject, record, oldAttestations, headRef, attest);
  }
  // Rule 6.
  if (input.requireAttestation) return notAttestedVerdict(name, record, headSha, headRef, attest);
  return {
    conclusion: "success",
    title: "Not superseded",
    detail: `${name}: no superseded claim is involved; attestation is not required here (\`check.requireAttestation: false\`).`,
  };
}

function humanChangeVerdict(name: string, record: ClaimRecord | null): SubjectVerdict {
  const branch = record?.branch ? `, branch \`${record.branch.replace(/`/g, "")}\`` : "";
  const holder =
    record?.state === "active" || record?.state === "human"
      ? `held by ${describe(record.actor)} (generation ${record.generation}${branch})`
      : record
        ? `last claimed by ${describe(record.actor)} (generation ${record.generation}, ${record.state})`
        : "claimed by an agent before";
  return {
    conclusion: "neutral",
    title: "Human change on a subject with an agent claim",
    detail: `${name} is ${holder}; this PR comes from a human on a non-agent branch, so it is not fenced. Coordinate with the holder before merging.`,
  };
}

function supersededVerdict(
  subject: LinkedSubject,
  record: ClaimRecord,
  oldAttestations: number[],
  headRef: string,
  attest: string,
): SubjectVerdict {
  const { subject: name } = subject;
  const current = record.generation;
  const old = Math.max(...oldAttestations, ...subject.branchGenerations.filter((g) => g !== current));
  const oldHolder = subject.pastHolders?.find((h) => h.generation === old);
  const whom = `generation ${old}${oldHolder ? ` (${describe(oldHolder.actor)})` : ""}`;
  const by =
    record.state === "active" || record.state === "human"
      ? `${describe(record.actor)} (generation ${current}) at ${iso(record.claimedAt)}`
      : `generation ${current} (${record.state}${record.endedBy ? ` by ${describe(record.endedBy)}` : ""}) at ${iso(record.endedAt ?? record.claimedAt)}`;
  const resume =
    record.state === "active" && record.branch === headRef
      ? ` The current holder continues on this branch: it may vouch for this head with ${attest}.`
      : "";
  return {
    conclusion: "failure",
    title: "Superseded holder",
    detail: `${name}: ${whom} was superseded by ${by}; this head is not vouched for by the current holder.${resume}`,
  };
}

function notAttestedVerdict(
  name: string,
  record: ClaimRecord,
  headSha: string,
  headRef: string,
  attest: string,
): SubjectVerdict {
  const current = record.generation;
  const fix =
    record.state === "active" && record.actor.kind === "agent"
      ? `The holder (${describe(record.actor)}, generation ${current}) runs ${attest}.`
      : record.state === "human"
        ? `${describe(record.actor)} holds ${name} now (generation ${current}); an agent can vouch for this head only after claiming it (\`claim-hold claim ${name}\`) and running ${attest}.`
        : `Nobody holds ${name} now: claim it (\`claim-hold claim ${name}\`), then run ${attest}.`;
  return {
    conclusion: "failure",
    title: "Not attested by the current holder",
    detail: `${name}: ${headSha.slice(0, 7)} on \`${headRef.replace(/`/g, "")}\` is not attested by generation ${current}. ${fix}`,
  };
}

/**
 * The check verdict over every linked subject; the worst subject verdict wins
 * (failure > neutral > success), and its title becomes the check's title.
 */
export function decideCheck(input: CheckInput): CheckVerdict {
  const { headRef } = input.pullRequest;
  const agentBranch = isAgentBranch(headRef, input.agentBranches);
  const verdicts = input.subjects.map((subject) => ({
    subject,
    verdict: judge(subject, input, agentBranch),
  }));
  const summaryRows = input.subjects.map(({ subject, record }) => ({
    subject,
    holder: holderOf(record),
    generation: record?.generation ?? null,
    state: record?.state ?? "none",
  }));
  if (verdicts.length === 0) {
    return {
      conclusion: "success",
      title: "No agent claim involved",
      summaryRows,
      text: "This pull request is linked to no claimed issue.",
    };
  }
  // Stable sort: among equals the subjects keep the order they were given.
  const ordered = [...verdicts].sort(
    (a, b) => severity[b.verdict.conclusion] - severity[a.verdict.conclusion],
  );
  const worst = ordered[0]!.verdict;
  return {
    conclusion: worst.conclusion,
    title: worst.title,
    summaryRows,
    text: ordered.map(({ verdict }) => `- ${verdict.detail}`).join("\n"),
  };
}

/** The summary table of a verdict, as the check run's Markdown `output.summary`. */
export function renderCheckSummary(rows: CheckSummaryRow[]): string {
  const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
  return [
    "| subject | holder | generation | state |",
    "|---|---|---|---|",
    ...rows.map(
      (r) => `| ${cell(r.subject)} | ${cell(r.holder)} | ${r.generation ?? "—"} | ${cell(r.state)} |`,
    ),
  ].join("\n");
}

/** One pull request of a merge group with the verdict its own head got. */
export interface GroupMemberVerdict {
  number: number;
  verdict: CheckVerdict;
}

/**
 * The verdict of a merge group ("Merge queue" in docs/reference/github-surfaces.md#the-claim-hold-check-run):
 * the worst of its pull requests' verdicts, each judged on its own head. The title names the pull
 * request that decided it when the group holds more than one; the text lists every pull request, worst
 * first. A group whose pull requests could not be found in the queue fails: a fence that cannot see
 * what it guards does not open.
 */
export function decideGroupCheck(members: GroupMemberVerdict[]): CheckVerdict {
  if (members.length === 0) {
    return {
      conclusion: "failure",
      title: "Merge group not found in the queue",
      summaryRows: [],
      text: "GitHub's merge queue lists no entry for this merge group, so its pull requests are unknown. The queue builds a new group (and asks again) when it changes.",
    };
  }
  const ordered = [...members].sort(
    (a, b) => severity[b.verdict.conclusion] - severity[a.verdict.conclusion],
  );
  const worst = ordered[0]!;
  const title = members.length === 1 ? worst.verdict.title : `#${worst.number}: ${worst.verdict.title}`;
  const pulls = [
    "| pull request | conclusion | verdict |",
    "|---|---|---|",
    ...members.map(
      (m) => `| #${m.number} | ${m.verdict.conclusion} | ${m.verdict.title.replace(/\|/g, "\\|")} |`,
    ),
  ];
  return {
    conclusion: worst.verdict.conclusion,
    title,
    summaryRows: members.flatMap((m) => m.verdict.summaryRows),
    text: [
      ...pulls,
      "",
      ...ordered.map((m) => `#${m.number} (${m.verdict.conclusion}):\n${m.verdict.text}`),
    ].join("\n"),
  };
}

/** Why an evaluation could not finish: the claim store, or anything else (GitHub, mostly). */
export type UnevaluatedCause = "store-unavailable" | "error";

/**
 * The run of a head whose evaluation could not finish (a required check must never hang). A PR an
 * agent is involved in fails — a fence that cannot see must not open; a human-only PR is `neutral`
 * — claim-hold's outage must not block people, and rules 2–3 never fail such a PR anyway. Either
 * way the run says what happened, and the evaluation is run again once the cause is gone.
 */
export function unevaluatedVerdict(input: {
  cause: UnevaluatedCause;
  agentInvolved: boolean;
  /** One line of what failed (already redacted; rendered inert by the caller). */
  detail: string;
}): CheckVerdict {
  const what =
    input.cause === "store-unavailable"
      ? "The claim store (Redis) did not answer, so the holders and attestations could not be read."
      : "The evaluation failed before it could finish (GitHub or the claim store did not answer).";
  const why = input.agentInvolved
    ? "An agent claim may be involved (a fleet login's pull request, an agent branch, a linked issue with claim-hold's labels or claim comments, or linked issues GitHub did not show), so this fails closed: a fence that cannot see must not open."
    : "GitHub shows no agent claim involved (a person's pull request on a non-agent branch whose linked issues carry no claim-hold label or claim comment), so this does not block the merge.";
  return {
    conclusion: input.agentInvolved ? "failure" : "neutral",
    title: "claim-hold could not evaluate",
    summaryRows: [],
    text: `${what} ${why} claim-hold re-runs this check when it can (the janitor retries unfinished evaluations).\n\nWhat failed: ${input.detail}`,
  };
}
