// The live lease streams one replica holds: one per lease (the newest replaces the older), a cap in all, every one ended at shutdown.

export interface LeaseStreams {
  /** Whether one more stream fits under the cap (a lease's second stream replaces its first, so it always fits). */
  hasRoom(leaseId: string): boolean;
  /** Admits `leaseId`'s stream; the one it had is ended first. `end` ends this one; the answer forgets it. */
  open(leaseId: string, end: () => void): () => void;
  /** Ends every stream (shutdown: an open stream would keep the server from closing). */
  closeAll(): void;
  readonly size: number;
}

/** Streams a replica holds at most by default: each is one idle socket and one listener. */
export const defaultMaxLeaseStreams = 1000;

export function createLeaseStreams(options: { max?: number } = {}): LeaseStreams {
  const max = options.max ?? defaultMaxLeaseStreams;
  const open = new Map<string, () => void>();
  return {
    hasRoom: (leaseId) => open.has(leaseId) || open.size < max,
    open(leaseId, end) {
      // A session that reconnects (a restarted agent, a dropped connection it has not noticed) wins.
      open.get(leaseId)?.();
      open.set(leaseId, end);
      return () => {
        if (open.get(leaseId) === end) open.delete(leaseId);
      };
    },
    closeAll() {
      for (const end of [...open.values()]) end();
      open.clear();
    },
    get size() {
      return open.size;
    },
  };
}
