// SIGKILL of the App process (`node --import tsx src/main.ts`) in the middle of a claim and of a reap, then a restart.
import { afterEach, describe, expect, it } from "vitest";
import { appProcess, killAppProcess } from "../../tools/local-stack/start-app-process.js";
import { startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { testCredentials, testTokenSecret } from "../support/app-harness.js";
import {
  agentClient,
  installationId,
  otherToken,
  repo,
  repoId,
  seedWorld,
  statusOf,
} from "./support/world.js";

const adminToken = "process-kill-admin-token-0123456789";
const s1 = { sessionId: "s1", sessionKey: "session-key-of-s1-0123456789abcdef" };
let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
  cleanup = [];
});

/** The App as a child process on the stack; `env` replaces the default (the janitor off). */
const child = (env?: Record<string, string>) =>
  appProcess({ tokenSecret: testTokenSecret, adminToken, ...(env ? { env } : {}) });

/** A simulator and a private Redis; the App processes come later (`stack.addApp`, `stack.restartApp`). */
async function setup(files: Record<string, string> = {}) {
  const stack = await startLocalStack({
    redis: { kind: "private", keyPrefix: "kill:" },
    credentials: testCredentials(),
    startApp: child(),
    apps: 0,
  });
  cleanup.push(() => stack.stop());
  seedWorld(stack.sim, 3, files);
  return { stack, sim: stack.sim, stores: stack.stores };
}

describe("the App process killed mid-transition", () => {
  it.each([
    ["the write lands after the kill", {}],
    ["the write never lands", { status: 502 }],
  ])(
    "mid-claim (%s): after a restart the subject is held once, the claimant resumes it, GitHub matches the store",
    { timeout: 60_000 },
    async (_, fault) => {
      const { stack, sim, stores } = await setup();
      const first = await stack.addApp();
      await sim.flush();
      const slow = sim.fail({ operation: "ApplyTransition", delayMs: 1_500, ...fault });
      const pending = agentClient(first.url)
        .claim({ repo, issue: 1, actor: s1 })
        .catch((e) => e);
      const key = { installationId, repoId, issue: 1 };
      while ((await stores.claims.get(key))?.sync !== "pending")
        await new Promise((resolve) => setTimeout(resolve, 10));
      // Killed while GitHub is answering the claim's one batched write.
      while (slow.hits === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      await killAppProcess(first.child);
      expect(await pending).toMatchObject({ code: "network_error" });
      await new Promise((resolve) => setTimeout(resolve, 1_700)); // the simulator finishes the request
      const second = await stack.restartApp();

      expect(
        await statusOf(
          agentClient(second.url, otherToken).claim({ repo, issue: 1, actor: { sessionId: "s2" } }),
        ),
      ).toBe(409);
      // The session proves itself with its key (invariant 14), as the CLI and the MCP server do.
      const resumed = await agentClient(second.url).claim({ repo, issue: 1, actor: s1 });
      expect(resumed.lease.generation).toBe(1);
      await expect(agentClient(second.url).heartbeat(resumed.lease)).resolves.toMatchObject({
        generation: 1,
      });
      await sim.flush();
      const issue = sim.issue(repo, 1);
      if (process.env.KILL_DEBUG)
        console.log(JSON.stringify({ issue, log: sim.requests.entries.slice(-12) }, null, 1));
      expect(issue.assignees).toEqual(["fleet-bot"]);
      expect(issue.labels).toContain("agent:claimed");
      const markers = issue.comments.filter((c) => c.body.includes('"generation":1,"state":"active"'));
      expect(markers).toHaveLength(1);
    },
  );

  it("mid-reap: after a restart the reconcile finishes the reap, once", { timeout: 60_000 }, async () => {
    const { stack, sim, stores } = await setup({
      ".github/claim-hold.yml": "taskClasses:\n  author: { ttl: 10s, reclaimAfter: 10s, heartbeat: 2s }\n",
    });
    const first = await stack.addApp();
    await sim.flush();
    await agentClient(first.url).claim({ repo, issue: 2, actor: { sessionId: "dead" } });
    await new Promise((resolve) => setTimeout(resolve, 10_500)); // silent past reclaimAfter (real time: a child process)
    sim.fail({ operation: "ApplyTransition", delayMs: 1_500, status: 502 });
    const sweep = fetch(`${first.url}/api/v1/admin/janitor/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: "{}",
    }).catch((e) => e);
    const key = { installationId, repoId, issue: 2 };
    while ((await stores.claims.get(key))?.state !== "reaped")
      await new Promise((resolve) => setTimeout(resolve, 10));
    await killAppProcess(first.child);
    await sweep;
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    expect(sim.issue(repo, 2).assignees).toEqual(["fleet-bot"]); // the reap's write never landed

    // A replica with its janitor on: a sweep and a reconcile every second.
    await stack.restartApp(child({ JANITOR_INTERVAL_SECONDS: "1", JANITOR_RECONCILE_EVERY: "1" }));
    // Until the reconcile's write has landed and the store has recorded it (the fenced write reads
    // the store once more after GitHub answers, so the two are not simultaneous); at most 30 s, as a
    // loaded machine runs the new child's first sweeps late.
    for (
      let i = 0;
      i < 300 && (sim.issue(repo, 2).assignees.length > 0 || (await stores.claims.get(key))?.sync !== "done");
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await sim.flush();
    const issue = sim.issue(repo, 2);
    expect(issue.assignees).toEqual([]);
    expect(issue.labels).toEqual([]);
    if (process.env.KILL_DEBUG)
      console.log(JSON.stringify([issue.comments.map((c) => c.body), await stores.claims.get(key)]));
    expect(issue.comments.filter((c) => c.body.includes('"state":"reaped"'))).toHaveLength(1);
    expect(await stores.claims.get(key)).toMatchObject({ state: "reaped", generation: 2, sync: "done" });
  });
});
