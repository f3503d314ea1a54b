// The App's clock: wall time that absorbs its own jumps (checked against the monotonic clock) and slews back.
import { performance } from "node:perf_hooks";

export interface SteadyClockOptions {
  wall?: () => number;
  monotonic?: () => number;
  /** A disagreement between the two clocks larger than this, between two readings, is a jump. */
  toleranceMs?: number;
  /** How fast an absorbed jump is paid back: 0.2 = the clock runs at most 20 % fast or slow meanwhile. */
  slewRate?: number;
  onJump?: (jumpMs: number) => void;
}

/**
 * Liveness is `now - lastHeartbeatAt`, so a step of the host's wall clock would make every live
 * holder look silent (forward: stale, reaped, its heartbeats `410 expired`, its subject open to an
 * immediate takeover) or make dead ones look alive (backward). This clock follows the wall clock but
 * never steps: a jump is absorbed and then paid back gradually, at most `slewRate` of elapsed time,
 * so a holder heartbeating every `heartbeat` looks silent at most `heartbeat × (1 + slewRate)` —
 * well inside its ttl (6 heartbeats by default). It never runs backwards.
 */
export function createSteadyClock(options: SteadyClockOptions = {}): () => number {
  const wall = options.wall ?? Date.now;
  const monotonic = options.monotonic ?? (() => performance.now());
  const toleranceMs = options.toleranceMs ?? 1_000;
  const slewRate = options.slewRate ?? 0.2;
  let lastWall = wall();
  let lastMonotonic = monotonic();
  let offset = 0;
  let last = lastWall;
  return () => {
    const nowWall = wall();
    const nowMonotonic = monotonic();
    const elapsed = Math.max(0, nowMonotonic - lastMonotonic);
    const drift = nowWall - lastWall - elapsed;
    if (Math.abs(drift) > toleranceMs) {
      offset += drift;
      options.onJump?.(drift);
    }
    const payBack = Math.min(Math.abs(offset), slewRate * elapsed);
    offset -= Math.sign(offset) * payBack;
    lastWall = nowWall;
    lastMonotonic = nowMonotonic;
    last = Math.max(last, Math.round(nowWall - offset));
    return last;
  };
}
