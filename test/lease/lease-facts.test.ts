// The heartbeat's cache of lease facts: only what no transition changes within a generation, per lease and token, bounded.
import { describe, expect, it } from "vitest";
import { LeaseFactsCache } from "../../src/lease/calls/lease-facts.js";
import { agentClaimRecord } from "../support/claim-record.js";

const digestA = "a".repeat(64);
const digestB = "b".repeat(64);

describe("LeaseFactsCache", () => {
  it("keeps a record's fixed facts only, and hands them to the token they were read for", () => {
    const cache = new LeaseFactsCache();
    const record = agentClaimRecord({ issueNodeId: "I_1", phase: "coding", waitUntil: 5, needsHuman: true });
    expect(cache.get("1.7.12.3", digestA)).toBeUndefined();
    expect(cache.remember("1.7.12.3", digestA, record)).toStrictEqual({
      installationId: 1,
      repoId: 7,
      issue: 12,
      generation: 3,
      repo: "octo/widgets",
      actor: record.actor,
      taskClass: "author",
      issueNodeId: "I_1",
    });
    expect(cache.get("1.7.12.3", digestA)).toMatchObject({ repo: "octo/widgets", generation: 3 });
    // Another token of the same lease id (a re-claim's) asks the store again.
    expect(cache.get("1.7.12.3", digestB)).toBeUndefined();
    expect(cache.get("1.7.12.4", digestA)).toBeUndefined();
    expect(cache.remember("1.7.12.3", digestB, agentClaimRecord())).not.toHaveProperty("issueNodeId");
    expect(cache.get("1.7.12.3", digestA)).toBeUndefined();
    cache.forget("1.7.12.3");
    expect(cache.get("1.7.12.3", digestB)).toBeUndefined();
  });

  it("keeps a bounded number of leases, the one remembered first going first", () => {
    const cache = new LeaseFactsCache(3);
    for (const generation of [1, 2, 3, 4]) {
      cache.remember(`1.7.12.${generation}`, digestA, agentClaimRecord({ generation }));
    }
    expect(cache.size).toBe(3);
    expect(cache.get("1.7.12.1", digestA)).toBeUndefined();
    expect(cache.get("1.7.12.4", digestA)).toMatchObject({ generation: 4 });
    // Remembering a lease again takes no other's place.
    cache.remember("1.7.12.2", digestA, agentClaimRecord({ generation: 2 }));
    expect(cache.size).toBe(3);
    expect(cache.get("1.7.12.3", digestA)).toBeDefined();
  });
});
