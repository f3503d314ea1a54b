// Which installations a sweep visits, and when GitHub's list of them must be read because the store lost its own; pure.

/** GitHub's list of the App's installations as the janitor last read it, and the clock at that read. */
export interface ListedInstallations {
  ids: number[];
  at: number;
}

export interface InstallationEvidence {
  /** A reconcile pass was asked for: GitHub's list is read anyway (it also finds new installations). */
  reconcile: boolean;
  /** The store's installation set. */
  stored: number[];
  /** GitHub's list as last read by this process (null: never read). */
  listed: ListedInstallations | null;
  /** The store's epoch of each listed installation the store still names. */
  epochs: ReadonlyMap<number, number>;
}

export type ListReason = "reconcile" | "store-empty" | "store-forgot" | "store-epoch-newer";

/**
 * Listed installations whose store data is gone since the list was read: the store's set no longer
 * names them, or their data began again (a newer epoch). Installations the list did not name are
 * new, not lost.
 */
export function lostInstallations(evidence: InstallationEvidence): number[] {
  const { listed, stored, epochs } = evidence;
  if (!listed) return [];
  return listed.ids.filter((id) => !stored.includes(id) || (epochs.get(id) ?? 0) > listed.at);
}

/**
 * decide: why GitHub's list must be read before this sweep, or null (the store's set is trusted and
 * the sweep costs no GitHub request). An empty set is a loss unless GitHub said last time that the
 * App has no installation at all.
 */
export function listReason(evidence: InstallationEvidence): ListReason | null {
  if (evidence.reconcile) return "reconcile";
  const { stored, listed } = evidence;
  if (stored.length === 0 && (!listed || listed.ids.length > 0)) return "store-empty";
  const lost = lostInstallations(evidence);
  if (lost.some((id) => !stored.includes(id))) return "store-forgot";
  if (lost.length > 0) return "store-epoch-newer";
  return null;
}

export interface InstallationVisit {
  /** Installations the sweep visits for due claims, ascending. */
  visit: number[];
  /** Installations the sweep also reconciles (rebuilds from GitHub), ascending. */
  reconcile: number[];
}

/**
 * The sweep's installations once GitHub's list (`fetched`) is known: the store's set ∪ GitHub's.
 * A reconcile pass reconciles them all; a sweep that found a loss reconciles what the store lost:
 * the installations its set does not name, and `lost` (data begun again).
 */
export function planVisit(input: {
  reconcile: boolean;
  stored: number[];
  fetched: number[];
  lost: number[];
}): InstallationVisit {
  const visit = [...new Set([...input.stored, ...input.fetched])].sort((a, b) => a - b);
  const reconcile = input.reconcile
    ? visit
    : visit.filter((id) => !input.stored.includes(id) || input.lost.includes(id));
  return { visit, reconcile };
}
