// How many Redis round trips one claim costs at a fleet's pace, counted on a private redis-server with production throttling.
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultApp, type LocalStack, startLocalStack } from "../tools/local-stack/start-local-stack.js";
import { agentClient, repo, seedWorld } from "./faults/support/world.js";

/** What a MONITOR connection saw clients send (commands run by scripts, tagged `lua`, left out). */
interface Sent {
  command: string;
  args: string[];
}

async function watchClients(client: Redis): Promise<{ sent: Sent[]; stop(): void }> {
  const monitor = await client.monitor();
  const sent: Sent[] = [];
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    const [command = "", ...rest] = args;
    if (source === "lua") return;
    sent.push({ command: command.toLowerCase(), args: rest });
  });
  return { sent, stop: () => monitor.disconnect() };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a claim's Redis round trips", () => {
  let stack: LocalStack;

  beforeAll(async () => {
    stack = await startLocalStack({
      redis: { kind: "private" },
      startApp: defaultApp({ productionThrottle: true, disabledJobs: ["janitor"] }),
    });
    seedWorld(stack.sim, 6);
    await stack.sim.flush();
  }, 30_000);
  afterAll(() => stack?.stop());

  /**
   * A warm claim (the installation's second and later, 1.2 s apart as a fleet claims, so the write
   * limiter is idle) sends these 7, one after another (24 before issue 24 item 4):
   *  1. HGETALL of the subject's record: the previous claim's branch (none asked), before GitHub's read;
   *  2. LRANGE of the subject's failed attempts (the failure breaker; none here);
   *  3. queueCandidate-2.lua: the candidate's blockers and the index's freshness;
   *  4. claim-14.lua: the claim, the installation's epoch, the repository index, the write lock and (a stalled takeover) the failed attempt;
   *  5. spaceWrites-1.lua: the installation's write spacing, shared through Redis across replicas,
   *     before the one mutation; the read limiters are per process, in memory;
   *  6. finishWrite-2.lua: the record after the write, the claim comment committed, the lock given up;
   *  after the answer, the merge fence's re-check of the subject:
   *  7. fenceRecordClaim-5.lua: its note of the new claim, answering the subject's linked pull requests
   *     and the pull requests of other repositories that close it.
   */
  it("is counted exactly on a warm claim", { timeout: 60_000 }, async () => {
    const client = agentClient(stack.app.url);
    const redis = stack.redis!.client;
    // Webhooks the claims cause are held: their handlers' round trips are not the claim's.
    stack.sim.webhooks.hold();
    await client.claim({ repo, issue: 1, actor: { sessionId: "warm-up" } });
    const perClaim: Sent[][] = [];
    for (const issue of [2, 3, 4]) {
      await pause(1_200);
      const watch = await watchClients(redis);
      await client.claim({ repo, issue, actor: { sessionId: `s${issue}` } });
      await stack.app.settled?.();
      // MONITOR lines arrive after the commands were answered: give the last ones a moment.
      await pause(50);
      watch.stop();
      perClaim.push(watch.sent);
    }
    const described = perClaim.map((sent) => sent.map((s) => `${s.command} ${s.args.slice(0, 3).join(" ")}`));
    expect(
      perClaim.map((sent) => sent.length),
      JSON.stringify(described, null, 1),
    ).toEqual([7, 7, 7]);
  });

  /**
   * The read and failed-auth limits count in this Redis too (as with REDIS_URL), but only a failure
   * is counted: a heartbeat sends its one script call and nothing else, and a heartbeat with a wrong
   * credential sends the failed-auth limit's one script call (`rlflxIncr`) and nothing else.
   */
  it("is one script call per heartbeat, none of them the limits'; a failed authentication costs one", {
    timeout: 60_000,
  }, async () => {
    const client = agentClient(stack.app.url);
    const redis = stack.redis!.client;
    stack.sim.webhooks.hold();
    const claimed = await client.claim({ repo, issue: 5, actor: { sessionId: "s5" } });
    await stack.app.settled?.();
    const lease = { id: claimed.lease.id, token: claimed.lease.token };
    const sent: Sent[][] = [];
    for (const token of [lease.token, lease.token, "not-a-lease-token"]) {
      const watch = await watchClients(redis);
      await client.heartbeat({ ...lease, token }).catch(() => undefined);
      await pause(50);
      watch.stop();
      sent.push(watch.sent);
    }
    const described = sent.map((calls) => calls.map((s) => `${s.command} ${s.args.slice(0, 3).join(" ")}`));
    expect(
      sent.map((calls) => calls.length),
      JSON.stringify(described, null, 1),
    ).toEqual([1, 1, 1]);
    expect(sent.flat().filter((s) => s.args.some((arg) => arg.includes("limit:")))).toEqual([sent[2]![0]]);
  });
});
