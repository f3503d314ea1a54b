// A lease's reported usage (cumulative: docs/reference/http-api.md#lease-calls) in whole micro-dollars, and the rule that it never goes down.

/** Spend is kept in whole micro-dollars, so every store adds and compares exactly (no float drift). */
export const microsPerUsd = 1_000_000;

export function usdToMicros(usd: number): number {
  return Math.round(usd * microsPerUsd);
}

export function microsToUsd(micros: number): number {
  return micros / microsPerUsd;
}

/** The last usage a lease reported: both figures are cumulative for the lease. */
export interface LeaseUsage {
  costMicros: number;
  tokens: number;
}

/** What one heartbeat reports; a figure left out keeps its last value. */
export interface ReportedUsage {
  costMicros?: number;
  tokens?: number;
}

export type UsageCheck =
  /** `addedMicros`: what this report adds to the subject's spend (its cost minus the lease's last). */
  | { kind: "accepted"; usage: LeaseUsage; addedMicros: number }
  /** A figure lower than the lease's last one: refused (422), nothing is stored. */
  | { kind: "decreased"; field: "costUsd" | "tokens"; last: number; reported: number };

export const noUsage: LeaseUsage = { costMicros: 0, tokens: 0 };

/** Checks a report against the lease's last one (`undefined`: the lease's first report). */
export function checkUsage(last: LeaseUsage | undefined, reported: ReportedUsage): UsageCheck {
  const previous = last ?? noUsage;
  const costMicros = reported.costMicros ?? previous.costMicros;
  const tokens = reported.tokens ?? previous.tokens;
  if (costMicros < previous.costMicros) {
    return {
      kind: "decreased",
      field: "costUsd",
      last: microsToUsd(previous.costMicros),
      reported: microsToUsd(costMicros),
    };
  }
  if (tokens < previous.tokens) {
    return { kind: "decreased", field: "tokens", last: previous.tokens, reported: tokens };
  }
  return { kind: "accepted", usage: { costMicros, tokens }, addedMicros: costMicros - previous.costMicros };
}

/** A subject's spend: the sum of each generation's last reported cost (a takeover does not reset it). */
export function subjectSpendMicros(leases: Iterable<LeaseUsage>): number {
  let total = 0;
  for (const lease of leases) total += lease.costMicros;
  return total;
}
