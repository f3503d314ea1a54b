// The trust model as a table against the real App: actor kinds × the surfaces where who acts decides what happens.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import {
  claimMarkers,
  type E2eWorld,
  maintainer,
  reader,
  repo,
  startWorld,
  writer,
} from "./support/e2e-world.js";

const redisProbe = await probeRedis();

/** The actor kinds of the trust model, each a GitHub account of the world. */
const bot = { login: "helper[bot]", id: 701 };
/** A second fleet account: a login the App learned runs agents from its own claim. */
const fleet2 = { login: "fleet-two", id: 702, token: "ghp_fleettwo000000000000000000000000e2e" };
const outsider = { login: "mallory", id: 703 };

type Actor = "bot" | "fleet" | "writer" | "reader" | "outsider";
const actors: Actor[] = ["bot", "fleet", "writer", "reader", "outsider"];
const loginOf: Record<Actor, string> = {
  bot: bot.login,
  fleet: fleet2.login,
  writer: writer.login,
  reader: reader.login,
  outsider: outsider.login,
};
/** Readers and outsiders cannot push to the repository: their PRs come from forks. */
const fromFork: Record<Actor, boolean> = {
  bot: false,
  fleet: false,
  writer: false,
  reader: true,
  outsider: true,
};

type Surface =
  | "/reclaim"
  | "PR head verdict"
  | "merge-group verdict"
  | "queue pr_open"
  | "direct claim"
  | "heartbeat pullRequest"
  | "hand assignment";

/** What each actor's act leads to, surface by surface (docs/security.md#trust-model). */
const expected: Record<Surface, Record<Actor, string>> = {
  "/reclaim": {
    bot: "ignored",
    fleet: "refused: for people",
    writer: "reclaimed",
    reader: "refused: permission",
    outsider: "refused: permission",
  },
  "PR head verdict": {
    bot: "failure",
    fleet: "failure",
    writer: "neutral",
    reader: "neutral",
    outsider: "neutral",
  },
  "merge-group verdict": {
    bot: "failure",
    fleet: "failure",
    writer: "neutral",
    reader: "neutral",
    outsider: "neutral",
  },
  "queue pr_open": {
    bot: "skipped",
    fleet: "skipped",
    writer: "skipped",
    reader: "offered",
    outsider: "offered",
  },
  "direct claim": {
    bot: "409 pr_open",
    fleet: "409 pr_open",
    writer: "409 pr_open",
    reader: "201",
    outsider: "201",
  },
  "heartbeat pullRequest": {
    bot: "reclaimable",
    fleet: "reclaimable",
    writer: "reclaimable",
    reader: "reclaimable",
    outsider: "reclaimable",
  },
  "hand assignment": {
    bot: "201",
    fleet: "201",
    writer: "409 human_held",
    reader: "409 human_held",
    outsider: "409 human_held",
  },
};

let world: E2eWorld;
/** Issues per cell: each (surface, actor) works on an issue of its own. */
const issueOf = (surface: Surface, actor: Actor) =>
  Object.keys(expected).indexOf(surface) * actors.length + actors.indexOf(actor) + 1;

async function statusOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "201";
  } catch (error) {
    const { status, code } = error as { status?: number; code?: string };
    return `${status} ${code}`;
  }
}

function conclusionOn(sha: string): string | null {
  const runs = world.sim.checkRuns(repo, sha).filter((r) => r.name === "claim-hold");
  return runs.at(-1)?.conclusion ?? null;
}

/** The actor's PR closing `issue` (or only mentioning it), from a branch of its own or its fork. */
function pullBy(actor: Actor, issue: number, body = `Closes #${issue}`) {
  const branch = `${loginOf[actor].replace(/\W/g, "")}-${issue}`;
  const { sha } = world.sim.push({ repo, branch, login: loginOf[actor], message: "change" });
  const pull = world.sim.openPull({
    repo,
    author: loginOf[actor],
    head: branch,
    title: `Change ${issue}`,
    body,
    fork: fromFork[actor],
  });
  return { sha, number: pull.number };
}

const cells: Record<Surface, (actor: Actor, issue: number) => Promise<string>> = {
  async "/reclaim"(actor, issue) {
    const { sim } = world;
    await world.agent().claim({ repo, issue, actor: { sessionId: `r${issue}` } });
    await sim.flush();
    const before = sim.issue(repo, issue).comments.length;
    sim.comment({ repo, issue, login: loginOf[actor], body: "/reclaim" });
    await sim.flush();
    const after = sim.issue(repo, issue);
    const markers = claimMarkers(sim, issue);
    if (markers.some((m) => m.generation === 2)) return "reclaimed";
    const replies = after.comments
      .slice(before + 1)
      .filter((c) => c.author.endsWith("[bot]") && c.author !== bot.login);
    if (replies.length === 0) return "ignored";
    const body = replies.at(-1)!.body;
    return body.includes("is for people")
      ? "refused: for people"
      : body.includes("permission")
        ? "refused: permission"
        : body;
  },
  async "PR head verdict"(actor, issue) {
    await world.agent().claim({ repo, issue, actor: { sessionId: `p${issue}` } });
    const { sha } = pullBy(actor, issue);
    await world.sim.flush();
    return conclusionOn(sha) ?? "none";
  },
  async "merge-group verdict"(actor, issue) {
    await world.agent().claim({ repo, issue, actor: { sessionId: `m${issue}` } });
    const { number } = pullBy(actor, issue);
    await world.sim.flush();
    const [group] = world.sim.enqueue({ repo, pulls: [number], login: maintainer.login });
    await world.sim.flush();
    world.sim.dequeue({ repo, number, login: maintainer.login });
    await world.sim.flush();
    return conclusionOn(group!.headSha) ?? "none";
  },
  async "queue pr_open"(actor, issue) {
    pullBy(actor, issue);
    await world.sim.flush();
    const status = await statusOf(
      world.agent().claimNext({ repo, actor: { sessionId: `q${issue}` }, labels: [`cell-${issue}`] }),
    );
    return status === "201" ? "offered" : status === "409 queue_empty" ? "skipped" : status;
  },
  async "direct claim"(actor, issue) {
    pullBy(actor, issue);
    await world.sim.flush();
    return statusOf(world.agent().claim({ repo, issue, actor: { sessionId: `d${issue}` } }));
  },
  async "heartbeat pullRequest"(actor, issue) {
    const agent = world.agent();
    const { lease } = await agent.claim({ repo, issue, actor: { sessionId: `h${issue}` } });
    // Someone else's PR, only mentioning the issue: named by the holder's heartbeat as its own.
    const { number } = pullBy(actor, issue, `Refs #${issue}`);
    await world.sim.flush();
    await agent.heartbeat(lease, { pullRequest: number });
    return (await world.stores.claims.get({ installationId: 42, repoId: 1296269, issue }))?.pullRequest ===
      number
      ? "reported"
      : "not reported";
  },
  async "hand assignment"(actor, issue) {
    world.sim.assign({ repo, issue, login: maintainer.login, assignees: [loginOf[actor]] });
    await world.sim.flush();
    return statusOf(world.agent().claim({ repo, issue, actor: { sessionId: `a${issue}` } }));
  },
};

describe.skipIf(!redisProbe.available)(
  "the identity table: actor kinds × surfaces, against the real App",
  () => {
    const results = new Map<string, string>();

    beforeAll(async () => {
      const count = Object.keys(expected).length * actors.length;
      world = await startWorld({
        issues: Array.from({ length: count }, (_, i) => ({ number: i + 1, title: `Cell ${i + 1}` })),
      });
      const { sim } = world;
      sim.addUser({ login: bot.login, id: bot.id, type: "Bot" });
      sim.addUser({ login: fleet2.login, id: fleet2.id, tokens: [fleet2.token] });
      sim.addUser({ login: outsider.login, id: outsider.id });
      sim.setPermission(repo, fleet2.login, "write");
      // claims/next cells look only at their own issue.
      for (const actor of actors) {
        const issue = issueOf("queue pr_open", actor);
        sim.assign({ repo, issue, login: maintainer.login, labels: [`cell-${issue}`] });
      }
      await sim.flush();
      // fleet-two becomes a fleet login the only way there is: by holding an agent claim through the API.
      const own = Object.keys(expected).length * actors.length;
      sim.addIssue(repo, { number: own + 1, title: "fleet-two's own" });
      await sim.flush();
      await world.agent(fleet2.token).claim({ repo, issue: own + 1, actor: { sessionId: "learn" } });
      await sim.flush();

      for (const surface of Object.keys(expected) as Surface[]) {
        for (const actor of actors) {
          results.set(`${surface}|${actor}`, await cells[surface](actor, issueOf(surface, actor)));
        }
      }
      // The heartbeat row: past reclaimAfter a claim is judged by its own branch, not by the PR it named
      // (reclaimable: the janitor reaps it; `awaiting-review` would keep it forever).
      world.app.clock.now += 61_000;
      const inventory = await world.agent().inventory(repo);
      for (const actor of actors) {
        const issue = issueOf("heartbeat pullRequest", actor);
        const reported = results.get(`heartbeat pullRequest|${actor}`);
        const row = inventory.claims.find((r) => r.subject === `${repo}#${issue}`);
        results.set(
          `heartbeat pullRequest|${actor}`,
          reported === "reported" ? (row?.state ?? "none") : reported!,
        );
      }
    }, 120_000);
    afterAll(() => world?.close());

    it.each(
      (Object.keys(expected) as Surface[]).flatMap((surface) =>
        actors.map((actor) => ({ surface, actor, outcome: expected[surface][actor] })),
      ),
    )("$surface × $actor → $outcome", ({ surface, actor, outcome }) => {
      expect(results.get(`${surface}|${actor}`)).toBe(outcome);
    });
  },
);
