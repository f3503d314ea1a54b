// A small simulated world for the targeted fault tests: octo/widgets, two agent accounts, a human maintainer.
import { createClaimHoldClient } from "../../../src/agent/client/index.js";
import type { GitHubSimulator } from "../../../tools/github-sim/index.js";

export const repo = "octo/widgets";
export const repoId = 7001;
export const installationId = 42;
export const fleetToken = "ghp_fleetbot0000000000000000000000000001";
export const otherToken = "ghp_otherbot0000000000000000000000000002";

export function seedWorld(sim: GitHubSimulator, issues = 3, files: Record<string, string> = {}): void {
  sim.seed({
    users: [
      { login: "fleet-bot", tokens: [fleetToken] },
      { login: "other-bot", tokens: [otherToken] },
      { login: "alice", tokens: ["ghp_alice000000000000000000000000000000003"] },
    ],
    repos: [
      {
        fullName: repo,
        id: repoId,
        files,
        collaborators: { "fleet-bot": "write", "other-bot": "write", alice: "maintain" },
        issues: Array.from({ length: issues }, (_, i) => ({ number: i + 1, title: `Work item ${i + 1}` })),
      },
    ],
    installations: [{ id: installationId, account: "octo", repos: [repo] }],
  });
}

export function agentClient(url: string, token = fleetToken) {
  return createClaimHoldClient({
    baseUrl: url,
    githubToken: token,
    retries: 0,
    maxTakeoverWaits: 0,
    timeoutMs: 30_000,
  });
}

/** The status of a call: 2xx of the answer, or the ClaimHoldError's status. */
export async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    return (error as { status?: number }).status ?? -1;
  }
}
