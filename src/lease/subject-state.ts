// Adapts a GitHub snapshot and a store record into the evidence the pure state derivation reads.
import { defaultRepoConfig } from "../config/repo-config.js";
import type { ClaimRecord } from "../domain/claim.js";
import type { SubjectSnapshot } from "../providers/assignment-provider.js";
import type { RepoConfigSource } from "./lease-core.js";
import { livenessOf } from "./liveness.js";

export function deriveSubjectState(configs: RepoConfigSource) {
  return (snapshot: SubjectSnapshot, record: ClaimRecord | null, storeEpoch: number, now: number) => {
    void configs;
    void defaultRepoConfig;
    if (!record) return { state: snapshot.assignees.length ? "human" : "free", reasons: [] };
    const liveness = livenessOf(record, now, storeEpoch);
    return { state: liveness === "live" ? "active" : liveness, reasons: [] };
  };
}
