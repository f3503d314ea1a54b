// How long held claims have asked for a person, as the claims gauge's background counts saw the asks appear.

/**
 * When each asking claim was first counted as asking: the time kept for the asks still counted,
 * `now` for the new ones, the asks no longer counted dropped. The store keeps no "asked since", so
 * an ask is dated by the first count that saw it (at most one refresh late; a restart dates it anew).
 */
export function needsHumanAges(
  previous: ReadonlyMap<string, number>,
  asking: readonly string[],
  now: number,
): Map<string, number> {
  const since = new Map<string, number>();
  for (const id of asking) since.set(id, previous.get(id) ?? now);
  return since;
}

/** Seconds since the oldest ask in `since` was first counted; 0 when nobody asks. */
export function oldestAskSeconds(since: ReadonlyMap<string, number>, now: number): number {
  let oldest = now;
  for (const at of since.values()) oldest = Math.min(oldest, at);
  return Math.max(0, (now - oldest) / 1000);
}
