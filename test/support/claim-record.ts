// A claim record as the store holds it, for tests that build one by hand: fleet-bot's live claim of octo/widgets#12, generation 3.
import type { ClaimRecord } from "../../src/domain/claim.js";

export function agentClaimRecord(overrides: Partial<ClaimRecord> = {}): ClaimRecord {
  return {
    installationId: 1,
    repoId: 7,
    issue: 12,
    repo: "octo/widgets",
    generation: 3,
    state: "active",
    actor: { kind: "agent", login: "fleet-bot", sessionId: "s1" },
    taskClass: "author",
    claimedAt: 0,
    lastHeartbeatAt: 0,
    durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
    tokenDigest: "a".repeat(64),
    appAssigned: true,
    assigneeNodeId: "U_fleet",
    sync: "pending",
    ...overrides,
  };
}
