// Claims made from a process of their own, as an agent fleet makes them: one at a time with a pause between, or all at once.
//
//   node --import tsx bench/claim-load.ts '<json ClaimPlan>'   → prints one JSON ClaimLoadResult
//
// "spaced": each claim of `issues` in turn, `gapMs` after the previous answer (the write limiter is
// idle again by then, as for a claim of a fleet at its usual pace); "burst": every claim at once.
import { createClaimHoldClient, isClaimHoldError } from "../src/agent/client/index.js";

export interface ClaimPlan {
  appUrl: string;
  githubToken: string;
  repo: string;
  issues: number[];
  mode: "spaced" | "burst";
  gapMs?: number;
  /** Prefix of each claim's session id (one session per claim). */
  session: string;
}

export interface ClaimLoadResult {
  /** Per claim, in `issues` order: when it was sent (epoch ms), ms from sending to the answer, and the answer's status. */
  claims: { issue: number; sentAt: number; ms: number; status: number }[];
  /** From the first claim sent to the last answer (ms). */
  wallMs: number;
}

export async function runClaims(plan: ClaimPlan): Promise<ClaimLoadResult> {
  const client = createClaimHoldClient({ baseUrl: plan.appUrl, githubToken: plan.githubToken, retries: 0 });
  const claimOne = async (issue: number) => {
    const sentAt = Date.now();
    const started = performance.now();
    const status = await client
      .claim({ repo: plan.repo, issue, actor: { runtime: "bench", sessionId: `${plan.session}-${issue}` } })
      .then(
        (claim) => (claim.created ? 201 : 200),
        (error: unknown) => {
          if (isClaimHoldError(error)) return error.status;
          throw error;
        },
      );
    return { issue, sentAt, ms: performance.now() - started, status };
  };
  const started = performance.now();
  if (plan.mode === "burst") {
    const claims = await Promise.all(plan.issues.map(claimOne));
    return { claims, wallMs: performance.now() - started };
  }
  const claims = [];
  for (const issue of plan.issues) {
    claims.push(await claimOne(issue));
    await new Promise((resolve) => setTimeout(resolve, plan.gapMs ?? 1_100));
  }
  return { claims, wallMs: performance.now() - started };
}

if (process.argv[1]?.endsWith("bench/claim-load.ts")) {
  const result = await runClaims(JSON.parse(process.argv[2] ?? "{}") as ClaimPlan);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}
