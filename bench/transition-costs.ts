// (c) GitHub requests per transition, counted in the simulator's request log with the App's caches warm.
import { createClaimHoldClient } from "../src/agent/client/index.js";
import { type BenchWorld, fleet, repo } from "./bench-world.js";

export type TransitionCosts = Record<string, { requests: number; detail: Record<string, number> }>;

/** Runs each transition once (after a warm-up claim) and counts what GitHub saw, webhooks' effects included. */
export async function benchTransitionCosts(world: BenchWorld): Promise<TransitionCosts> {
  const { sim } = world.stack;
  const client = createClaimHoldClient({
    baseUrl: world.stack.app.url,
    githubToken: fleet.token,
    retries: 0,
    // A takeover's grace beat passes on the App's clock, not in real time.
    sleep: async (ms) => {
      world.clock.now += ms;
    },
  });
  const costs: TransitionCosts = {};
  const measure = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    await sim.flush();
    const mark = sim.requests.mark();
    const result = await work();
    await sim.flush();
    const detail = sim.requests.counts(mark);
    costs[name] = { requests: Object.values(detail).reduce((a, b) => a + b, 0), detail };
    return result;
  };
  const actor = (sessionId: string) => ({ runtime: "bench", sessionId });

  // Warm-up: installation token, token → login, permission, config.
  const warm = await client.claim({ repo, issue: 1, actor: actor("warm") });
  await client.release(warm.lease, { outcome: "abandoned" });

  const branch = "agent/A/2-x";
  const a = await measure("claim", () => client.claim({ repo, issue: 2, actor: actor("A"), branch }));
  await measure("heartbeat", () => client.heartbeat(a.lease));
  await measure("heartbeat with a phase change", () => client.heartbeat(a.lease, { phase: "testing" }));
  await measure("claim refused (409 held)", () =>
    client.claim({ repo, issue: 2, actor: actor("X") }).catch(() => null),
  );
  const { sha } = sim.push({ repo, branch, login: fleet.login });
  await measure("check evaluation (PR opened)", async () => {
    sim.openPull({ repo, author: fleet.login, head: branch, title: "x", body: "Closes #2" });
  });
  await measure("attest (verdict changes)", () => client.attest(a.lease, sha));
  const run = sim.checkRuns(repo, sha)[0]!;
  await measure("check re-run, verdict unchanged", async () => {
    sim.rerequestCheckRun(run.id, fleet.login);
  });
  world.clock.now += 11_000; // past the ttl
  const b = await measure("takeover (202, then 201 after the grace; PR check flips)", () =>
    client.claim({ repo, issue: 2, actor: actor("B"), takeover: true }),
  );
  await measure("release (linked PR check re-run)", () => client.release(b.lease, { outcome: "completed" }));
  const c = await client.claim({ repo, issue: 3, actor: actor("C") });
  await measure("release (no PR)", () => client.release(c.lease, { outcome: "abandoned" }));

  await client.claim({ repo, issue: 4, actor: actor("D") });
  await measure("janitor sweep, nothing due", () => world.stack.app.services.janitor.sweep());
  world.clock.now += 25_000; // past reclaimAfter: reaped without a stale step
  await measure("reap (janitor sweep, one due)", () => world.stack.app.services.janitor.sweep());
  return costs;
}
