// The join rule for `queue`: which open issues are free to claim, and why (SPEC §1, §2.2).
import type { ClaimRow } from "../client/index.js";

export interface OpenIssue {
  number: number;
  title: string;
  assignees: string[];
}

export interface FreeIssue {
  subject: string;
  issue: number;
  title?: string;
  /** Machine-readable: `unclaimed`, `stale`, `reclaimable`, `phantom`. */
  reason: string;
  /** A human sentence. */
  detail: string;
  /** Claiming it needs `--takeover` (a stale or reclaimable holder still exists). */
  takeover: boolean;
  state?: string;
}

/**
 * Staleness, not assignment, excludes: an issue is free when nothing live holds it — no claim row and
 * no assignee, a stale or reclaimable agent claim, or a managed label with no claim record behind it.
 * Everything else (active, waiting, awaiting-review, human, human-idle, conflicted, unknown) is held.
 */
export function findFreeIssues(repo: string, issues: OpenIssue[], rows: ClaimRow[]): FreeIssue[] {
  const rowsByIssue = new Map<number, ClaimRow>();
  for (const row of rows) {
    const issue = Number(row.subject.slice(row.subject.lastIndexOf("#") + 1));
    if (Number.isSafeInteger(issue)) rowsByIssue.set(issue, row);
  }
  const titles = new Map(issues.map((issue) => [issue.number, issue.title]));
  const free: FreeIssue[] = [];

  for (const issue of issues) {
    if (rowsByIssue.has(issue.number) || issue.assignees.length > 0) continue;
    free.push({
      subject: `${repo}#${issue.number}`,
      issue: issue.number,
      title: issue.title,
      reason: "unclaimed",
      detail: "no claim and no assignee",
      takeover: false,
    });
  }
  for (const [number, row] of rowsByIssue) {
    const verdict = judgeRow(row);
    if (!verdict) continue;
    free.push({
      subject: `${repo}#${number}`,
      issue: number,
      ...(titles.has(number) ? { title: titles.get(number) } : {}),
      ...verdict,
      state: row.state,
    });
  }
  return free.sort((a, b) => a.issue - b.issue);
}

function judgeRow(row: ClaimRow): Pick<FreeIssue, "reason" | "detail" | "takeover"> | null {
  const holder = row.actor?.login ?? "an agent";
  const since = row.lastHeartbeatAt ? `, silent since ${row.lastHeartbeatAt}` : "";
  const codes = row.reasons.length > 0 ? ` [${row.reasons.join(", ")}]` : "";
  switch (row.state) {
    case "stale":
      return { reason: "stale", detail: `stale claim by ${holder}${since}${codes}`, takeover: true };
    case "reclaimable":
      return {
        reason: "reclaimable",
        detail: `reclaimable claim by ${holder}${since}${codes}`,
        takeover: true,
      };
    case "phantom":
      // A label left behind with no claim record never gates work; a record without label may be live.
      return row.actor
        ? null
        : { reason: "phantom", detail: `managed label without a claim${codes}`, takeover: false };
    default:
      return null;
  }
}
