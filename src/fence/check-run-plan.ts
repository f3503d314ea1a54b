// The pure steps around decideCheck: evidence → linked subject, verdict → check run, existing run → write or skip.
import { commitStatusDescriptionOf, commitStatusStateOf } from "../domain/check-values.js";
import type { ClaimRecord } from "../domain/claim.js";
import { inert } from "../domain/inert-text.js";
import type { CheckAnnotation, DesiredCheckRun, ExistingCheckRun } from "../providers/checks-provider.js";
import type { ClaimNote, FenceEvidence } from "../providers/fence-store.js";
import type { CheckVerdict, LinkedSubject } from "./check-verdict.js";

/** The claims the fence knows of a subject, with the store's current record folded in. */
export function claimsOf(evidence: FenceEvidence, record: ClaimRecord | null): ClaimNote[] {
  const claims = [...evidence.claims];
  if (record && !claims.some((c) => c.generation === record.generation)) {
    claims.push({
      generation: record.generation,
      actor: record.actor,
      ...(record.branch ? { branch: record.branch } : {}),
    });
    claims.sort((a, b) => a.generation - b.generation);
  }
  return claims;
}

/**
 * Rule 1's evidence for one subject, as decideCheck wants it. `headRef` null: the branch may not
 * link this PR (a person's PR off the agent branches), so no claim's branch name counts.
 */
export function linkedSubjectOf(
  subject: string,
  record: ClaimRecord | null,
  evidence: FenceEvidence,
  headRef: string | null,
): LinkedSubject {
  const claims = claimsOf(evidence, record);
  return {
    subject,
    record,
    everAgentClaimed: claims.some((c) => c.actor.kind === "agent"),
    branchGenerations:
      headRef === null ? [] : claims.filter((c) => c.branch === headRef).map((c) => c.generation),
    attestedGenerations: evidence.attestedGenerations,
    pastHolders: claims.map((c) => ({ generation: c.generation, actor: c.actor })),
  };
}

/** A PR is an agent's when a bot opened it or its author's login held an agent claim on a linked subject. */
export function authorKindOf(
  author: { login: string; bot: boolean },
  claims: ClaimNote[],
): "agent" | "human" {
  if (author.bot) return "agent";
  const login = author.login.toLowerCase();
  return claims.some((c) => c.actor.kind === "agent" && c.actor.login.toLowerCase() === login)
    ? "agent"
    : "human";
}

export interface CheckRunContext {
  subjects: LinkedSubject[];
  /** The repository config's validation error, if its file is invalid (defaults were used). */
  configError?: string;
  detailsUrl?: string;
}

export const configPath = ".github/claim-hold.yml";

/** The config file a config error names (Gitea reads `.gitea/claim-hold.yml` first); `configPath` when it names none. */
export function configPathOf(error: string): string {
  const named = [".gitea/claim-hold.yml", configPath]
    .map((path) => ({ path, at: error.indexOf(path) }))
    .filter(({ at }) => at >= 0)
    .sort((a, b) => a.at - b.at)[0];
  return named?.path ?? configPath;
}

/**
 * The check run for a verdict. An invalid config file adds a warning annotation naming its line,
 * and a verdict that would pass becomes `neutral` so the problem is seen (neutral still satisfies
 * a required check).
 */
export function checkRunOf(verdict: CheckVerdict, context: CheckRunContext): DesiredCheckRun {
  const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const rows = verdict.summaryRows.map((row, i) => {
    const subject = context.subjects[i];
    const current = subject?.record?.generation;
    const attested = (subject?.attestedGenerations ?? [])
      .map((g) => (g === current ? `generation ${g} (current)` : `generation ${g}`))
      .join(", ");
    return `| ${cell(row.subject)} | ${cell(row.holder)} | ${row.generation ?? "—"} | ${cell(row.state)} | ${attested || "—"} |`;
  });
  const lines = ["| subject | holder | generation | state | attested by |", "|---|---|---|---|---|", ...rows];
  if (verdict.summaryRows.length === 0) lines.push("", "No linked issue.");
  const annotations: CheckAnnotation[] = [];
  let conclusion = verdict.conclusion;
  let statusNote: string | undefined;
  if (context.configError) {
    const path = configPathOf(context.configError);
    const line = lineOf(context.configError);
    // The file's own text (keys, YAML excerpts) comes back in the error: inert (invariant 11).
    lines.push(
      "",
      `⚠️ \`${path}\` is invalid, so the defaults were used: ${inert(context.configError, { max: 500 })}`,
    );
    statusNote = `config invalid (${path} line ${line})`;
    annotations.push({
      path,
      line,
      level: "warning",
      message: `${inert(context.configError, { max: 500 })} (claim-hold uses its defaults until this is fixed)`,
    });
    if (conclusion === "success") conclusion = "neutral";
  }
  return {
    conclusion,
    title: verdict.title,
    summary: lines.join("\n"),
    text: verdict.text,
    ...(context.detailsUrl ? { detailsUrl: context.detailsUrl } : {}),
    annotations,
    ...(statusNote ? { statusNote } : {}),
  };
}

/** `… line 3: …` in a config error; line 1 when the error names a field rather than a line. */
export function lineOf(error: string): number {
  const match = /\bline (\d+)\b/.exec(error);
  return match ? Number(match[1]) : 1;
}

export type CheckWrite = { kind: "none" } | { kind: "create" } | { kind: "update"; id: number };

/** Skip the write when the forge already shows this verdict (mutations are the scarce quota). */
export function decideCheckWrite(existing: ExistingCheckRun | null, desired: DesiredCheckRun): CheckWrite {
  if (!existing) return { kind: "create" };
  // A commit status shows only its state and description: the rest of the verdict is not kept there.
  const unchanged =
    existing.kind === "commit-status"
      ? existing.conclusion === commitStatusStateOf(desired.conclusion) &&
        existing.title === commitStatusDescriptionOf(desired.title, desired.statusNote)
      : existing.conclusion === desired.conclusion &&
        existing.title === desired.title &&
        existing.summary === desired.summary &&
        (existing.text ?? "") === desired.text;
  return unchanged ? { kind: "none" } : { kind: "update", id: existing.id };
}
