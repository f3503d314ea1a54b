// Pausing the janitor per installation (docs/deploy.md#operator-actions): a store document per installation, read by every sweep.
import type { DocumentStore } from "../providers/app-stores.js";

/** A pause is kept until resumed; a year bounds a forgotten one's key. */
const pauseRetentionMs = 365 * 24 * 3_600_000;
const resumedRetentionMs = 60_000;
const documentOf = (installationId: number) => `janitor:paused:${installationId}`;

export interface JanitorPauses {
  isPaused(installationId: number): Promise<boolean>;
  /** The paused ones among `installationIds`, ascending. */
  pausedAmong(installationIds: readonly number[]): Promise<number[]>;
  setPaused(installationId: number, paused: boolean, now: number): Promise<void>;
}

/** One document per installation, so two operators pausing two installations never overwrite each other. */
export function createJanitorPauses(documents: DocumentStore): JanitorPauses {
  const isPaused = async (installationId: number) => {
    const value = await documents.getDocument(documentOf(installationId));
    return typeof value === "object" && value !== null && (value as { paused?: unknown }).paused === true;
  };
  return {
    isPaused,
    async pausedAmong(installationIds) {
      const ids = [...new Set(installationIds)].sort((a, b) => a - b);
      const flags = await Promise.all(ids.map(isPaused));
      return ids.filter((_, i) => flags[i]);
    },
    async setPaused(installationId, paused, now) {
      await documents.putDocument(
        documentOf(installationId),
        { paused, at: new Date(now).toISOString() },
        paused ? pauseRetentionMs : resumedRetentionMs,
      );
    },
  };
}
