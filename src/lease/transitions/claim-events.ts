// The one port a transition tells what happened: wiring fans it out to the merge fence and the notifications.
import type { RepoConfig } from "../../config/repo-config.js";
import type { ClaimChange } from "../../domain/claim-change.js";

export interface ClaimEvents {
  /**
   * Told once per transition, after its store step and its GitHub write (landed or not). Resolves
   * when what listens has run (the notifications queued, the fence's re-check done); never rejects:
   * a listener's failure is logged there and never undoes the transition. A claim's answer does not
   * wait for it; the janitor and the webhooks do.
   */
  transitioned(change: ClaimChange, config: RepoConfig): Promise<void>;
}

/** Tells nobody (a test or tool that does not look). */
export const unheardClaimEvents: ClaimEvents = { transitioned: async () => undefined };
