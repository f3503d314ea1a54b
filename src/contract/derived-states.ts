// The derived claim states (docs/reference/http-api.md#get-apiv1reposownerrepoclaimsstatelimit--inventory) as the server derives them and the API reports them, shared by client and server.

export const derivedStates = [
  "active",
  "waiting",
  /** Heartbeating, but no progress for `stallAfter` (docs/reference/http-api.md#stalled). */
  "stalled",
  "awaiting-review",
  "stale",
  "reclaimable",
  "human",
  "human-idle",
  "phantom",
  "conflicted",
  "unknown",
  /** Not a held claim's state: nobody holds the subject (what `claim-hold queue` lists as free). */
  "free",
] as const;
export type DerivedState = (typeof derivedStates)[number];
