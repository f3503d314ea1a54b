import { describe, expect, it } from "vitest";
import type { CheckConclusion } from "../src/domain/check-values.js";
import type { ClaimRecord } from "../src/domain/claim.js";
import {
  type CheckInput,
  decideCheck,
  type LinkedSubject,
  renderCheckSummary,
} from "../src/fence/check-verdict.js";

const sha = "0123456789abcdef0123456789abcdef01234567";
const branch = "agent/5f0c/12-fix-parser";
const claimedAt = Date.parse("2025-03-01T10:00:00Z");
const codex = { kind: "agent" as const, login: "bot-account", runtime: "codex", sessionId: "9a1" };

function record(overrides: Partial<ClaimRecord> = {}): ClaimRecord {
  return {
    installationId: 1,
    repoId: 100,
    issue: 12,
    repo: "octo/repo",
    generation: 3,
    state: "active",
    actor: { kind: "agent", login: "bot-account", runtime: "claude-code", sessionId: "5f0c" },
    taskClass: "author",
    branch,
    durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
    claimedAt,
    lastHeartbeatAt: claimedAt,
    appAssigned: true,
    sync: "done",
    ...overrides,
  };
}

function subject(overrides: Partial<LinkedSubject> = {}): LinkedSubject {
  return {
    subject: "octo/repo#12",
    record: record(),
    everAgentClaimed: true,
    branchGenerations: [3],
    attestedGenerations: [],
    ...overrides,
  };
}

function input(overrides: Partial<CheckInput> = {}, pr: Partial<CheckInput["pullRequest"]> = {}): CheckInput {
  return {
    pullRequest: { number: 40, authorKind: "agent", headRef: branch, headSha: sha, ...pr },
    subjects: [subject()],
    requireAttestation: true,
    agentBranches: ["agent/**"],
    ...overrides,
  };
}

interface Row {
  name: string;
  input: CheckInput;
  conclusion: CheckConclusion;
  title: string;
  /** Fragments the explanation must contain. */
  text?: string[];
}

const rows: Row[] = [
  // Rule 2
  {
    name: "rule 2: no linked subject ever had an agent claim",
    input: input(
      { subjects: [subject({ record: null, everAgentClaimed: false, branchGenerations: [] })] },
      { authorKind: "human", headRef: "fix-typo" },
    ),
    conclusion: "success",
    title: "No agent claim involved",
    text: ["no agent claim involved"],
  },
  {
    name: "rule 2: the only record is a human claim that never followed an agent",
    input: input({
      subjects: [
        subject({
          record: record({ state: "human", actor: { kind: "human", login: "alice" }, branch: undefined }),
          everAgentClaimed: false,
          branchGenerations: [],
        }),
      ],
    }),
    conclusion: "success",
    title: "No agent claim involved",
  },
  {
    name: "rule 2: no linked subject at all",
    input: input({ subjects: [] }),
    conclusion: "success",
    title: "No agent claim involved",
  },
  // Rule 3
  {
    name: "rule 3: human PR on a non-agent branch names the agent holder",
    input: input(
      { subjects: [subject({ branchGenerations: [] })] },
      { authorKind: "human", headRef: "alice/parser-fix" },
    ),
    conclusion: "neutral",
    title: "Human change on a subject with an agent claim",
    text: [
      "held by claude-code session 5f0c (@bot-account) (generation 3, branch `agent/5f0c/12-fix-parser`)",
    ],
  },
  {
    name: "rule 3 does not apply to a human pushing to an agent branch",
    input: input({}, { authorKind: "human" }),
    conclusion: "failure",
    title: "Not attested by the current holder",
  },
  {
    name: "rule 3 applies to a person's branch outside the agent globs, even one a claim named",
    input: input(
      { subjects: [subject({ record: record({ branch: "fix-parser" }) })] },
      { authorKind: "human", headRef: "fix-parser" },
    ),
    conclusion: "neutral",
    title: "Human change on a subject with an agent claim",
  },
  {
    name: "rule 3 does not apply to a fleet login's PR off the agent globs",
    input: input(
      { subjects: [subject({ record: record({ branch: "fix-parser" }) })] },
      { authorKind: "agent", headRef: "fix-parser" },
    ),
    conclusion: "failure",
    title: "Not attested by the current holder",
  },
  {
    name: "rule 3 reads the configured globs, not only agent/",
    input: input({ agentBranches: ["bots/*/**"] }, { authorKind: "human", headRef: "bots/s1/12-fix" }),
    conclusion: "failure",
    title: "Not attested by the current holder",
  },
  // Rule 4
  {
    name: "rule 4: head attested by the current generation",
    input: input({ subjects: [subject({ attestedGenerations: [2, 3] })] }),
    conclusion: "success",
    title: "Attested by the current holder",
    text: ["attested by generation 3"],
  },
  {
    name: "rule 4: a released holder's attestation still stands (nobody superseded it)",
    input: input({
      subjects: [subject({ record: record({ state: "released" }), attestedGenerations: [3] })],
    }),
    conclusion: "success",
    title: "Attested by the current holder",
  },
  // Rule 5
  {
    name: "rule 5: head attested only by a superseded generation",
    input: input({
      subjects: [
        subject({
          record: record({ supersedes: 2 }),
          branchGenerations: [2, 3],
          attestedGenerations: [2],
          pastHolders: [{ generation: 2, actor: codex }],
        }),
      ],
    }),
    conclusion: "failure",
    title: "Superseded holder",
    text: [
      "generation 2 (codex session 9a1 (@bot-account)) was superseded by claude-code session 5f0c (@bot-account) (generation 3) at 2025-03-01T10:00:00.000Z",
      `claim-hold attest ${sha}`,
    ],
  },
  {
    name: "rule 5: the branch belongs only to superseded claims",
    input: input(
      {
        subjects: [subject({ record: record({ branch: "agent/77aa/12-redo" }), branchGenerations: [1, 2] })],
      },
      { headRef: "agent/9a1/12-old" },
    ),
    conclusion: "failure",
    title: "Superseded holder",
    text: ["generation 2 was superseded by claude-code session 5f0c (@bot-account) (generation 3)"],
  },
  {
    name: "rule 5: the holder was reaped (generation bumped)",
    input: input({
      subjects: [
        subject({
          record: record({
            generation: 4,
            state: "reaped",
            endedAt: Date.parse("2025-03-01T11:30:00Z"),
            endedBy: { kind: "agent", login: "claim-hold[bot]", runtime: "janitor" },
          }),
          branchGenerations: [3],
          attestedGenerations: [3],
        }),
      ],
    }),
    conclusion: "failure",
    title: "Superseded holder",
    text: [
      "generation 3 was superseded by generation 4 (reaped by janitor (@claim-hold[bot])) at 2025-03-01T11:30:00.000Z",
    ],
  },
  {
    name: "rule 5: an agent PR after a human /reclaim",
    input: input({
      subjects: [
        subject({
          record: record({
            generation: 4,
            state: "human",
            actor: { kind: "human", login: "alice" },
            branch: undefined,
          }),
          branchGenerations: [3],
          attestedGenerations: [3],
        }),
      ],
    }),
    conclusion: "failure",
    title: "Superseded holder",
    text: ["superseded by @alice (generation 4)"],
  },
  // Rule 6
  {
    name: "rule 6: the current holder's branch head is not attested",
    input: input(),
    conclusion: "failure",
    title: "Not attested by the current holder",
    text: [`runs \`claim-hold attest ${sha}\``],
  },
  {
    name: "rule 6: an agent branch nobody claimed, on a subject held by another agent",
    input: input({ subjects: [subject({ branchGenerations: [] })] }, { headRef: "agent/other/12" }),
    conclusion: "failure",
    title: "Not attested by the current holder",
    text: [`claim-hold attest ${sha}`],
  },
  {
    name: "rule 6: nobody holds the subject any more",
    input: input({ subjects: [subject({ record: record({ state: "released" }) })] }),
    conclusion: "failure",
    title: "Not attested by the current holder",
    text: ["claim-hold claim octo/repo#12", `claim-hold attest ${sha}`],
  },
  {
    name: "rule 6 off: attestation not required",
    input: input({ requireAttestation: false }),
    conclusion: "success",
    title: "Not superseded",
  },
  {
    name: "rule 5 still applies when attestation is not required",
    input: input({ requireAttestation: false, subjects: [subject({ attestedGenerations: [2] })] }),
    conclusion: "failure",
    title: "Superseded holder",
  },
  // The store has no record (lost, not yet reconciled)
  {
    name: "record missing: fail closed when attestation is required",
    input: input({ subjects: [subject({ record: null })] }),
    conclusion: "failure",
    title: "Claim record unavailable",
  },
  {
    name: "record missing, attestation not required: neutral",
    input: input({ requireAttestation: false, subjects: [subject({ record: null })] }),
    conclusion: "neutral",
    title: "Claim record unavailable",
  },
  // Several subjects: the worst verdict wins
  {
    name: "worst wins: success + failure → failure",
    input: input({
      subjects: [
        subject({ subject: "octo/repo#11", record: null, everAgentClaimed: false, branchGenerations: [] }),
        subject({ attestedGenerations: [3] }),
        subject({ subject: "octo/repo#13", attestedGenerations: [2], branchGenerations: [] }),
      ],
    }),
    conclusion: "failure",
    title: "Superseded holder",
  },
  {
    name: "worst wins whatever the order: failure, then success → failure",
    input: input({
      subjects: [
        subject({ subject: "octo/repo#13", attestedGenerations: [2], branchGenerations: [] }),
        subject({ attestedGenerations: [3] }),
      ],
    }),
    conclusion: "failure",
    title: "Superseded holder",
  },
  {
    name: "worst wins: success + neutral → neutral",
    input: input(
      {
        subjects: [
          subject({ subject: "octo/repo#11", record: null, everAgentClaimed: false, branchGenerations: [] }),
          subject({ branchGenerations: [] }),
        ],
      },
      { authorKind: "human", headRef: "alice/parser-fix" },
    ),
    conclusion: "neutral",
    title: "Human change on a subject with an agent claim",
  },
  {
    name: "worst wins: all attested → success",
    input: input({
      subjects: [
        subject({ attestedGenerations: [3] }),
        subject({
          subject: "octo/repo#13",
          record: record({ issue: 13, generation: 7 }),
          attestedGenerations: [7],
        }),
      ],
    }),
    conclusion: "success",
    title: "Attested by the current holder",
  },
];

describe("decideCheck", () => {
  it.each(rows)("$name → $conclusion", ({ input, conclusion, title, text }) => {
    const verdict = decideCheck(input);
    expect({ conclusion: verdict.conclusion, title: verdict.title }).toEqual({ conclusion, title });
    for (const fragment of text ?? []) expect(verdict.text).toContain(fragment);
  });

  it("lists every linked subject in the summary, the failing one first in the text", () => {
    const verdict = decideCheck(
      input({
        subjects: [
          subject({ subject: "octo/repo#11", record: null, everAgentClaimed: false, branchGenerations: [] }),
          subject({ attestedGenerations: [2] }),
        ],
      }),
    );
    expect(verdict.summaryRows).toEqual([
      { subject: "octo/repo#11", holder: "unknown", generation: null, state: "none" },
      {
        subject: "octo/repo#12",
        holder: "claude-code session 5f0c (@bot-account)",
        generation: 3,
        state: "active",
      },
    ]);
    expect(verdict.text.split("\n")).toEqual([
      expect.stringMatching(/^- octo\/repo#12: generation 2 was superseded/),
      "- octo/repo#11: no agent claim involved.",
    ]);
    expect(renderCheckSummary(verdict.summaryRows)).toBe(
      [
        "| subject | holder | generation | state |",
        "|---|---|---|---|",
        "| octo/repo#11 | unknown | — | none |",
        "| octo/repo#12 | claude-code session 5f0c (@bot-account) | 3 | active |",
      ].join("\n"),
    );
  });

  it("keeps a claimant's runtime from injecting Markdown", () => {
    const verdict = decideCheck(
      input({
        subjects: [
          subject({
            record: record({
              actor: {
                kind: "agent",
                login: "bot-account",
                runtime: "[x](https://evil)|",
                sessionId: "5f0c",
              },
            }),
          }),
        ],
      }),
    );
    // Escaped, so it renders as the text the claimant typed, never as a link or a table cell.
    expect(verdict.text).not.toMatch(/(?<!\\)\]\(/);
    expect(verdict.summaryRows[0]?.holder).toBe("\\[x\\](https://evil)\\| session 5f0c (@bot-account)");
  });
});
