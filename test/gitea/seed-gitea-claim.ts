// A live agent claim as the lease core leaves it on Gitea, seeded for a test: the store's record, then the bot's writes (assignee, label, signed claim comment) through the Gitea provider.
import type { ClaimRecord } from "../../src/domain/claim.js";
import { renderClaimComment } from "../../src/domain/claim-marker.js";
import { createTokenMinter } from "../../src/lease/tokens.js";
import { GiteaAssignmentProvider } from "../../src/providers/gitea/gitea-assignment-provider.js";
import type { Stores } from "../../src/providers/stores.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { testSeal, testTokenSecret } from "../support/app-harness.js";
import { authorDurations } from "../support/seed-claims.js";
import { type GiteaSimFixture, giteaInstallation } from "./sim-fixture.js";

/**
 * `fleet-bot`'s claim of `issue` on octo/widgets, one session per issue (the per-session cap never
 * stops the next test's claim), its token answered for the lease API. `synced: false` stops before
 * the write: Gitea shows nothing of it and the record says `sync: pending`.
 */
export async function seedGiteaClaim(
  world: { stores: Stores; fixture: GiteaSimFixture; now: number },
  issue: SimIssue,
  options: { synced?: boolean; assigneeNodeId?: string } = {},
): Promise<{ record: ClaimRecord; token: string }> {
  const { stores, fixture, now } = world;
  const key = { installationId: giteaInstallation, repoId: fixture.repo.id, issue: issue.number };
  await stores.claims.epoch(giteaInstallation, now);
  const minter = createTokenMinter(testTokenSecret);
  const token = minter.mint();
  const outcome = await stores.claims.claim({
    key,
    repo: "octo/widgets",
    actor: { kind: "agent", login: "fleet-bot", sessionId: `s${issue.number}` },
    taskClass: "author",
    durations: authorDurations,
    branch: `agent/s${issue.number}/${issue.number}-work`,
    tokenDigest: minter.digest(token),
    takeover: false,
    now,
    minGeneration: 0,
    appAssigned: true,
    ...(options.assigneeNodeId ? { assigneeNodeId: options.assigneeNodeId } : {}),
    caps: { perSession: 5, perLogin: 50 },
  });
  if (outcome.kind !== "created") throw new Error(`claim not created: ${outcome.kind}`);
  await stores.installations.rememberInstallation(1);
  if (options.synced === false) return { record: outcome.record, token };
  const writer = new GiteaAssignmentProvider({ client: fixture.client, seal: testSeal });
  const applied = await writer.apply(
    { installationId: giteaInstallation, repo: "octo/widgets", issue: issue.number },
    {
      subjectNodeId: "",
      assign: ["fleet-bot"],
      addLabels: ["agent:claimed"],
      createClaimComment: renderClaimComment(outcome.record, "active"),
    },
  );
  const commentId = applied.claimComment?.databaseId ?? 0;
  await stores.claims.commitClaim(key, outcome.record.generation, {
    commentNodeId: String(commentId),
    commentId,
  });
  await stores.claims.markSynced(key, outcome.record.generation);
  return { record: (await stores.claims.get(key)) as ClaimRecord, token };
}
