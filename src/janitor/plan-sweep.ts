// The janitor's decisions as pure functions: what to do with one due subject, and the disruption guard.
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord } from "../domain/claim.js";
import type { DerivedClaimState } from "../lease/reads/derive-state.js";

export type SweepActionKind = "relabel-stale" | "reap" | "repair" | "deferred";

export interface PlannedAction {
  kind: "relabel-stale" | "reap" | "repair";
  reason: string;
}

/**
 * The janitor's action for each derived state (README.md#keeping-github-and-the-store-in-step).
 * Humans, live, waiting, awaiting-review, conflicted and unknown subjects are never acted on; neither is
 * anything carrying an exempt label.
 */
export function planSubject(
  derived: DerivedClaimState,
  record: ClaimRecord,
  config: RepoConfig,
): PlannedAction | null {
  if (derived.reasons.includes("exempt-label")) return null;
  switch (derived.state) {
    case "stale":
      return record.staleMarkedAt === undefined
        ? { kind: "relabel-stale", reason: derived.reasons.join(",") }
        : null;
    case "reclaimable":
      if (config.janitor.mode === "unassign") return { kind: "reap", reason: derived.reasons.join(",") };
      return record.staleMarkedAt === undefined ? { kind: "relabel-stale", reason: "mode-relabel" } : null;
    case "phantom":
      return { kind: "repair", reason: derived.reasons.join(",") };
    default:
      return null;
  }
}

/**
 * Invariant 8, like a disruption budget: when one sweep would reap more than `maxReapFraction`
 * of an installation's agent claims, and more than 5, it reaps none of them.
 */
export function exceedsDisruptionBudget(
  reaps: number,
  activeClaims: number,
  maxReapFraction: number,
): boolean {
  return reaps > 5 && reaps > maxReapFraction * activeClaims;
}
