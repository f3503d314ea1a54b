// The memory store's side of budgets: a heartbeat's usage checked and added to its subject's spend, as spend.lua does.
import { checkUsage, type ReportedUsage } from "../../budget/usage.js";
import type { SpendReport, UsageDecreased } from "../spend-store.js";
import type { SubjectSpend } from "./subject-slots.js";

export const noSpend: SubjectSpend = { leases: new Map(), totalMicros: 0, warned: false };

/**
 * Checks `reported` against the lease's last report (record_usage in spend.lua); when accepted,
 * answers the subject's spend with it stored and the spend's change. Changes nothing itself.
 */
export function recordUsage(
  spend: SubjectSpend | undefined,
  generation: number,
  reported: ReportedUsage,
): UsageDecreased | { spend: SubjectSpend; report: SpendReport } {
  const before = spend ?? noSpend;
  const check = checkUsage(before.leases.get(generation), reported);
  if (check.kind === "decreased") return { kind: "usage_decreased", field: check.field, last: check.last };
  const after: SubjectSpend = {
    ...before,
    leases: new Map(before.leases).set(generation, check.usage),
    totalMicros: before.totalMicros + check.addedMicros,
  };
  return {
    spend: after,
    report: { beforeMicros: before.totalMicros, afterMicros: after.totalMicros, warned: before.warned },
  };
}
