// Puts many live claims straight into the store (the benchmarks' background load; no GitHub writes involved).
import { randomBytes } from "node:crypto";
import type { Stores } from "../src/providers/stores.js";

/** `count` author claims on issues `first…`, one session each (100 accounts), live for 30 min from `now`. */
export async function seedClaims(
  stores: Pick<Stores, "claims" | "installations">,
  options: {
    installationId: number;
    repoId: number;
    repo: string;
    first: number;
    count: number;
    now: number;
  },
): Promise<void> {
  const batch: Promise<unknown>[] = [];
  for (let n = 0; n < options.count; n++) {
    const issue = options.first + n;
    batch.push(
      stores.claims.claim({
        key: { installationId: options.installationId, repoId: options.repoId, issue },
        repo: options.repo,
        // Spread over 100 accounts: the login cap counts a login's live claims on every claim (see docs).
        actor: {
          kind: "agent",
          login: `fleet-bot-${issue % 100}`,
          runtime: "bench",
          sessionId: `bg-${issue}`,
        },
        taskClass: "author",
        durations: { ttlMs: 30 * 60_000, reclaimAfterMs: 60 * 60_000, heartbeatMs: 5 * 60_000 },
        branch: `agent/bg-${issue}/${issue}-task`,
        tokenDigest: randomBytes(32).toString("hex"),
        takeover: false,
        now: options.now,
        minGeneration: 0,
        appAssigned: true,
        caps: { perSession: 1, perLogin: 1_000_000 },
      }),
    );
    if (batch.length >= 200) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  // As the lease core does on a claim: the fleet's readers (metrics, dashboard) start from this set.
  await stores.installations.rememberInstallation(options.installationId);
}
