// What the client's calls take: claim, heartbeat and release inputs, lease credentials and call options.
import type { ClaimResponse, TakeoverPending } from "../../contract/api-responses.js";
import type { ReleaseOutcomeName } from "../../contract/claim-vocabulary.js";
import type { Picked } from "../../contract/queue-responses.js";

export interface ClaimInput {
  /** `owner/name`. */
  repo: string;
  issue: number;
  /**
   * `sessionKey` (32–256 characters) is the session's secret: generate it once per session (e.g. 32
   * random bytes, base64url), keep it with the lease state and send it on every claim. Re-claiming a
   * live claim needs it (or `leaseToken`); the server keeps only a digest and never echoes it.
   */
  actor?: { runtime?: string; sessionId?: string; host?: string; sessionKey?: string };
  /** The lease's current token: proof for a re-claim that works even without the session key. */
  leaseToken?: string;
  taskClass?: string;
  branch?: string;
  takeover?: boolean;
  scope?: string[];
  artifacts?: string;
  /** Claim even though the issue has open blockers (otherwise `409 blocked`). */
  ignoreBlockers?: boolean;
  /** Claim even though someone else's open pull request already closes the issue (otherwise `409 pr_open`). */
  allowOpenPullRequest?: boolean;
  /** What this session can do; sent, an issue needing another capability is refused (`409 missing_capability`). */
  capabilities?: string[];
  /** Claim even though the issue failed `queue.maxFailures` times and waits for a person (otherwise `409 failing`). */
  override?: boolean;
}

/** `POST /api/v1/claims/next`: the server picks the issue; the rest is what a claim takes. */
export interface ClaimNextInput {
  /** `owner/name`. */
  repo: string;
  /** As for a claim: send the session's `sessionKey` every time. */
  actor?: ClaimInput["actor"];
  taskClass?: string;
  /** Only issues carrying every one of these labels. */
  labels?: string[];
  /** No issue carrying any of these labels. */
  excludeLabels?: string[];
  /** What this session can do (`gpu`, `python`): an issue labelled `needs:<capability>` needs it. */
  capabilities?: string[];
  /** Reclaimable agent claims are eligible too: picking one takes it over (resume on its branch). */
  includeTakeovers?: boolean;
  scope?: string[];
}

export interface ClaimOptions {
  signal?: AbortSignal;
  /** Called before each wait for a pending takeover's grace beat. */
  onTakeoverPending?: (pending: TakeoverPending) => void;
}

/** `created` is true for a new claim (201), false when the same session re-claimed (200). */
export type ClaimResult = ClaimResponse & { created: boolean };

/** The claim of the issue the server picked, and why it picked it. */
export type ClaimNextResult = ClaimResult & { picked: Picked };

/** What every lease call needs: the lease id and its `clh_` token. */
export interface LeaseCredentials {
  id: string;
  token: string;
}

export interface HeartbeatInput {
  phase?: string;
  pullRequest?: number;
  blocker?: string;
  /** ISO-8601. */
  waitUntil?: string;
  /** Asks for a person; needs a `blocker`. The next heartbeat without it withdraws the ask. */
  needsHuman?: boolean;
  /** Cumulative for the lease: never lower than the last report (the server answers 422). */
  usage?: { costUsd?: number; tokens?: number };
}

export type ReleaseOutcome = ReleaseOutcomeName;

export interface ReleaseInput {
  outcome: ReleaseOutcome;
  note?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
}
