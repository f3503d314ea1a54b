// Listens to a lease's live events beside the heartbeat loop: a `superseded` or `revoked` ends the lease at once instead of at the next beat.
import {
  type ClaimHoldClient,
  ClaimHoldError,
  isClaimHoldError,
  type LeaseCredentials,
  type LeaseEvent,
} from "../client/index.js";
import { isLeaseLost, isTransient } from "./errors.js";

/** The lease as the stream reported it lost, with the error its next heartbeat would have answered. */
export type WatchEnd = { kind: "superseded" | "gone"; error: ClaimHoldError };

export interface WatchDeps {
  client: Pick<ClaimHoldClient, "leaseEvents">;
  /** Read at each (re)connect: a re-claim by this session rotates the token; null once the lease is gone from this session. */
  lease: () => Promise<LeaseCredentials | null>;
  signal: AbortSignal;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told of every event that does not end the lease (the state, a takeover's intent, a person's answer). */
  onEvent?: (event: LeaseEvent) => void;
  /** Told once when the server has no stream for this lease: heartbeats alone keep it. */
  onUnavailable?: (error: unknown) => void;
}

const maxReconnectMs = 30_000;

/**
 * Resolves with the loss the stream reported, or null when stopped or when the stream cannot be had
 * (an older server's 404, a refused token): the heartbeats then learn everything as before. A dropped
 * stream or an unreachable server is reopened with a growing pause.
 */
export async function watchLeaseEvents(deps: WatchDeps): Promise<WatchEnd | null> {
  let pauseMs = 1_000;
  while (!deps.signal.aborted) {
    try {
      const lease = await deps.lease();
      if (!lease) return null;
      const events = await deps.client.leaseEvents(lease, { signal: deps.signal });
      pauseMs = 1_000;
      for await (const event of events) {
        // This session released the lease (the heartbeat loop sees its file go): nothing lost, nothing more to hear.
        if (event.event === "released") return null;
        const end = endOf(event);
        if (end) return end;
        deps.onEvent?.(event);
      }
    } catch (error) {
      if (deps.signal.aborted) return null;
      // Lost while the stream was down: the reconnect is refused as the heartbeat would be.
      if (isLeaseLost(error) && isClaimHoldError(error)) {
        // A token this session's own re-claim rotated out: the heartbeat loop tells that apart.
        if (error.details.reason === "rotated") return null;
        return { kind: error.code === "superseded" ? "superseded" : "gone", error };
      }
      if (!isTransient(error)) {
        deps.onUnavailable?.(error);
        return null;
      }
    }
    try {
      await deps.sleep(pauseMs, deps.signal);
    } catch {
      return null;
    }
    pauseMs = Math.min(pauseMs * 2, maxReconnectMs);
  }
  return null;
}

function endOf(event: LeaseEvent): WatchEnd | null {
  const { leaseId: _leaseId, ...details } = event.data;
  if (event.event === "superseded") {
    return {
      kind: "superseded",
      error: new ClaimHoldError({
        status: 409,
        code: "superseded",
        message: "This lease was superseded; stop working on the subject.",
        details,
      }),
    };
  }
  if (event.event === "revoked") {
    const reason = typeof details.reason === "string" ? details.reason : "revoked";
    return {
      kind: "gone",
      error: new ClaimHoldError({
        status: 410,
        code: "gone",
        message: `This lease has ended (${reason}); claim the subject again.`,
        details,
      }),
    };
  }
  return null;
}
