// The trust model on the claim path, tried from outside: resumed branches, whose PR counts, the needs-human throttle, /reclaim by the fleet account.
import { afterEach, describe, expect, it } from "vitest";
import { createClaimHoldClient } from "../../src/agent/client/index.js";
import { startApp, testAdminToken } from "../support/app-harness.js";
import { probeRedis } from "../support/redis.js";
import {
  appId,
  checkOf,
  type E2eWorld,
  fleet,
  reader,
  repo,
  startWorld,
  writer,
} from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const mentionConfig = [
  "taskClasses:",
  "  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }",
  "notify:",
  '  mention: "@octo/maintainers"',
  "",
].join("\n");

describe.skipIf(!redisProbe.available)(
  "trust on the claim path: branches, standing, the needs-human throttle, /reclaim",
  () => {
    it("G: a claim without a branch does not resume an ended claim's branch that now heads a person's open PR, and the ended claim does not judge that PR", async () => {
      world = await startWorld();
      const { sim } = world;
      const first = world.agent();
      const { lease } = await first.claim({ repo, issue: 1, actor: { sessionId: "a" } });
      const branch = lease.branch ?? "";
      sim.push({ repo, branch, login: fleet.login, message: "agent work" });
      await first.release(lease, { outcome: "handoff", note: "a person takes it from here" });
      await sim.flush();
      // Bob (a writer, never an agent) finishes the work on that branch and opens the PR.
      const { sha } = sim.push({ repo, branch, login: writer.login, message: "bob finishes" });
      sim.openPull({ repo, author: writer.login, head: branch, title: "Finish #1", body: "" });
      await sim.flush();
      // An ended claim's branch name alone never links a person's PR (docs/security.md#trust-model).
      expect.soft(checkOf(sim, sha).conclusion).not.toBe("failure");
      // Naming the branch is refused…
      await expect(
        world.agent().claim({ repo, issue: 1, actor: { sessionId: "b" }, branch }),
      ).rejects.toMatchObject({ status: 409, code: "branch_taken" });
      // …but not naming it resumes it.
      const second = await world.agent().claim({ repo, issue: 1, actor: { sessionId: "b" } });
      await sim.flush();
      expect(second.lease.branch).not.toBe(branch);
    });

    it("H: a reader's PR from a branch of the repository itself (not a fork) does not block a direct claim", async () => {
      world = await startWorld();
      const { sim } = world;
      sim.push({ repo, branch: "bob-wip", login: writer.login, message: "wip" });
      await sim.flush();
      // Carol can only read; she opens a PR whose head is an existing branch of the repository.
      const body = [1, 2, 3, 4, 5].map((n) => `Fixes #${n}`).join("\n");
      sim.openPull({ repo, author: reader.login, head: "bob-wip", title: "All of it", body });
      await sim.flush();
      const agent = world.agent();
      let direct: unknown;
      try {
        direct = await agent.claim({ repo, issue: 3, actor: { sessionId: "d" } });
      } catch (error) {
        direct = error;
      }
      expect(direct).toMatchObject({ lease: { generation: 1 } });
    });

    it("I: one mention comment per issue per cooldown, even across a release and re-claim", async () => {
      world = await startWorld({ config: mentionConfig });
      const { sim, app } = world;
      const agent = world.agent();
      const mentions = () =>
        sim
          .issue(repo, 1)
          .comments.filter((c) => c.author === "claim-hold[bot]" && c.body.includes("@octo/maintainers"));
      for (let round = 0; round < 3; round++) {
        const { lease } = await agent.claim({ repo, issue: 1, actor: { sessionId: `s${round}` } });
        app.clock.now += 1_000;
        await agent.heartbeat(lease, { needsHuman: true, blocker: `question ${round}` });
        app.clock.now += 1_000;
        await agent.release(lease, { outcome: "abandoned" });
        app.clock.now += 1_000;
      }
      await sim.flush();
      expect(mentions()).toHaveLength(1);
    });

    it("M: edited or redelivered /reclaim from the fleet account changes nothing", async () => {
      world = await startWorld();
      const { sim } = world;
      const { lease } = await world.agent().claim({ repo, issue: 1, actor: { sessionId: "v" } });
      await sim.flush();
      const comment = sim.comment({ repo, issue: 1, login: fleet.login, body: "looks fine" });
      await sim.flush();
      sim.editComment(comment.id, "/reclaim", fleet.login);
      await sim.flush();
      const refused = sim.comment({ repo, issue: 1, login: fleet.login, body: "/reclaim release" });
      await sim.flush();
      const delivery = sim
        .deliveries()
        .filter((d) => d.event === "issue_comment")
        .at(-1)!;
      sim.webhooks.redeliver(delivery.seq);
      await sim.flush();
      expect(refused.id).toBeGreaterThan(0);
      expect(sim.issue(repo, 1)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
      await expect(world.agent().verify(lease)).resolves.toMatchObject({ holder: true, generation: 1 });
    });

    it("N: a reader's fork PR reopened or edited to close issues blocks nothing", async () => {
      world = await startWorld();
      const { sim } = world;
      const pr = sim.openPull({
        repo,
        author: reader.login,
        head: "patch-1",
        title: "x",
        body: "",
        fork: true,
      });
      await sim.flush();
      sim.editPull(repo, pr.number, { body: "Fixes #1\nFixes #2" }, reader.login);
      sim.closePull(repo, pr.number, reader.login);
      sim.reopenPull(repo, pr.number, reader.login);
      await sim.flush();
      const picked = await world.agent().claimNext({ repo, actor: { sessionId: "n" } });
      expect(picked.lease.id).toBe("42.1296269.1.1");
      await expect(world.agent().claim({ repo, issue: 2, actor: { sessionId: "d" } })).resolves.toBeDefined();
    });

    it("O: the needs-human label comes off when the janitor reaps the silent asker", async () => {
      world = await startWorld({ config: mentionConfig });
      const { sim, app } = world;
      const agent = world.agent();
      const { lease } = await agent.claim({ repo, issue: 1, actor: { sessionId: "o" } });
      await agent.heartbeat(lease, { needsHuman: true, blocker: "which db?" });
      await sim.flush();
      expect(sim.issue(repo, 1).labels.sort()).toEqual(["agent:claimed", "agent:needs-human"]);
      const actions: unknown[] = [];
      for (let step = 0; step < 10; step++) {
        app.clock.now += 10_000;
        actions.push(...(await app.services.janitor.sweep()).actions);
      }
      await sim.flush();
      expect(sim.issue(repo, 1).labels).toEqual([]);
    });

    it("P: agents.logins in another case makes the login a fleet login for /reclaim", async () => {
      world = await startWorld({
        config:
          "taskClasses:\n  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }\nagents:\n  logins: [BOB]\n",
      });
      const { sim } = world;
      const { lease } = await world.agent().claim({ repo, issue: 1, actor: { sessionId: "v" } });
      sim.comment({ repo, issue: 1, login: writer.login, body: "/reclaim" });
      await sim.flush();
      expect(sim.issue(repo, 1).comments.at(-1)?.body).toContain("`/reclaim` is for people");
      await expect(world.agent().verify(lease)).resolves.toMatchObject({ holder: true });
    });

    it("Q: two replicas — the fleet account's first claim on one, its /reclaim on the other a moment later, is refused", async () => {
      world = await startWorld();
      const { sim } = world;
      // The webhook replica judges a PR of the fleet account before it ever claimed: "not a fleet login".
      sim.openPull({ repo, author: fleet.login, head: "docs-fleet", title: "Docs", body: "" });
      const bobs = await world.agent(writer.token).claim({ repo, issue: 2, actor: { sessionId: "b" } });
      await sim.flush();
      const replica = await world.stack.addApp((wiring) =>
        startApp({
          stores: wiring.stores,
          fences: wiring.fences,
          githubBaseUrl: wiring.githubBaseUrl,
          appId,
          now: world!.app.clock.now,
          adminToken: testAdminToken,
        }),
      );
      // Its first claim goes to the other replica; the command follows at once.
      const client = createClaimHoldClient({ baseUrl: replica.url, githubToken: fleet.token, retries: 0 });
      await client.claim({ repo, issue: 1, actor: { sessionId: "a" } });
      sim.comment({ repo, issue: 2, login: fleet.login, body: "/reclaim" });
      await sim.flush();
      expect(sim.issue(repo, 2).comments.at(-1)?.body).toContain("`/reclaim` is for people");
      await expect(world.agent(writer.token).verify(bobs.lease)).resolves.toBeDefined();
    });
  },
);
