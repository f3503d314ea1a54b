// The memory store's side of budgets: a heartbeat's usage checked and added to its subject's spend, as spend.lua does.
import { checkUsage, type ReportedUsage } from "../../budget/usage.js";
import type { SpendReport, UsageDecreased } from "../spend-store.js";
import type { SubjectSlot } from "./subject-slots.js";

/** Checks `reported` against the lease's last report; when accepted, stores it and answers the spend's change. */
export function recordUsage(
  slot: SubjectSlot,
  generation: number,
  reported: ReportedUsage,
): SpendReport | UsageDecreased {
  slot.spend ??= { leases: new Map(), totalMicros: 0, warned: false };
  const spend = slot.spend;
  const check = checkUsage(spend.leases.get(generation), reported);
  if (check.kind === "decreased") return { kind: "usage_decreased", field: check.field, last: check.last };
  const beforeMicros = spend.totalMicros;
  spend.leases.set(generation, check.usage);
  spend.totalMicros += check.addedMicros;
  return { beforeMicros, afterMicros: spend.totalMicros, warned: spend.warned };
}
