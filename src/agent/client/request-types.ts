// What the client's calls take: claim, heartbeat and release inputs, lease credentials and call options.
import type { ClaimResponse, TakeoverPending } from "../../contract/api-responses.js";
import type { ReleaseOutcomeName } from "../../contract/claim-vocabulary.js";

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
}

export interface ClaimOptions {
  signal?: AbortSignal;
  /** Called before each wait for a pending takeover's grace beat. */
  onTakeoverPending?: (pending: TakeoverPending) => void;
}

/** `created` is true for a new claim (201), false when the same session re-claimed (200). */
export type ClaimResult = ClaimResponse & { created: boolean };

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
