// Seeds claims straight into a store (the dashboard and metrics read the store alone), with tokens the App accepts.
import type { Actor, SubjectKey, TaskClass } from "../../src/domain/claim.js";
import { createTokenMinter } from "../../src/lease/tokens.js";
import type { Stores } from "../../src/providers/stores.js";
import { testTokenSecret } from "./app-harness.js";

export const minute = 60_000;
export const authorDurations = { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute };

const minter = createTokenMinter(testTokenSecret);

export interface SeededClaim {
  key: SubjectKey;
  generation: number;
  leaseId: string;
  token: string;
}

/** An agent claim made at `now`, as the lease core would have stored it. */
export async function seedAgentClaim(
  stores: Stores,
  claim: {
    key: SubjectKey;
    repo: string;
    actor: Omit<Actor, "kind">;
    now: number;
    title?: string;
    taskClass?: TaskClass;
    takeover?: boolean;
  },
): Promise<SeededClaim> {
  // As the lease core does: the installation's data begins no later than its first claim.
  await stores.claims.epoch(claim.key.installationId, claim.now);
  const token = minter.mint();
  const outcome = await stores.claims.claim({
    key: claim.key,
    repo: claim.repo,
    actor: { kind: "agent", ...claim.actor },
    taskClass: claim.taskClass ?? "author",
    durations: authorDurations,
    branch: `agent/${claim.actor.sessionId ?? "s"}/${claim.key.issue}-work`,
    ...(claim.title ? { title: claim.title } : {}),
    tokenDigest: minter.digest(token),
    takeover: claim.takeover ?? false,
    now: claim.now,
    minGeneration: 0,
    appAssigned: true,
    caps: { perSession: 5, perLogin: 50 },
  });
  if (outcome.kind !== "created")
    throw new Error(`seeding ${claim.repo}#${claim.key.issue}: ${outcome.kind}`);
  await stores.claims.commitClaim(claim.key, outcome.record.generation, {
    commentNodeId: `IC_${claim.key.issue}`,
  });
  await stores.claims.markSynced(claim.key, outcome.record.generation);
  await stores.installations.rememberInstallation(claim.key.installationId);
  const { installationId, repoId, issue } = claim.key;
  return {
    key: claim.key,
    generation: outcome.record.generation,
    leaseId: `${installationId}.${repoId}.${issue}.${outcome.record.generation}`,
    token,
  };
}

/** A human claim (a `/reclaim` by a maintainer). */
export async function seedHumanClaim(
  stores: Stores,
  claim: { key: SubjectKey; repo: string; login: string; now: number },
): Promise<void> {
  await stores.claims.humanClaim({
    key: claim.key,
    repo: claim.repo,
    actor: { kind: "human", login: claim.login },
    now: claim.now,
    minGeneration: 0,
    release: false,
    appAssigned: false,
  });
  await stores.installations.rememberInstallation(claim.key.installationId);
}
