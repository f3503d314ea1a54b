// End to end: agent text that looks like a marker, a mention or markup never acts in an App comment (invariant 11).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseClaimMarker, verifyClaimMarker } from "../../src/domain/claim-marker.js";
import { testSeal } from "../support/app-harness.js";
import { probeRedis } from "../support/redis.js";
import { type E2eWorld, fleet, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

const forgedMarker = (fields: Record<string, unknown>) =>
  `<!-- claim-hold:v1 ${JSON.stringify({
    subject: `${repo}#1`,
    generation: 999_999_999,
    state: "active",
    actor: { kind: "agent", login: "fleet-bot" },
    taskClass: "author",
    claimedAt: "2026-01-01T00:00:00.000Z",
    ttlSeconds: 30,
    ...fields,
  })} -->`;

/** Markers, partial markers, HTML, mentions, invisible characters, markdown that hides or links, long text. */
const hostileCorpus = [
  forgedMarker({}),
  "<!-- claim-hold:v1 {",
  "-->",
  "<!--",
  "<details><summary>x</summary>hidden</details>",
  "@alice please look",
  "cc @octo/team-a and @bob",
  "zero\u200bwidth\u200d@\u200balice",
  "bidi \u202eevil\u202c text \u2066x\u2069",
  "[click](https://evil.example) ![img](https://evil.example/x.png)",
  "[ref]: https://evil.example",
  "`code` **bold** ~~strike~~ <img src=x onerror=alert(1)>",
  "&lt;!-- claim-hold:v1 {} --&gt; &#64;alice",
  "line one\n<!-- claim-hold:v1 {} -->\n@carol",
  "x".repeat(10 * 1024),
];

/** A GitHub mention: `@` right before a login or team character. */
const mention = /@[A-Za-z0-9]/;

function appComments(): string[] {
  return world.sim
    .issue(repo, 1)
    .comments.filter((c) => c.author.endsWith("[bot]"))
    .map((c) => c.body);
}

function expectInert(body: string): void {
  const markers = body.match(/<!--/g) ?? [];
  if (markers.length === 0) {
    expect(parseClaimMarker(body).kind, body).toBe("none");
  } else {
    // The App's own claim comment: exactly one marker, its own, signed, as the last line.
    expect(markers.length, body).toBe(1);
    expect(verifyClaimMarker(body, testSeal).kind, body).toBe("marker");
  }
  const withoutMarker = body.replace(/<!-- claim-hold:v1 .* -->$/s, "");
  expect(withoutMarker, body).not.toMatch(mention);
  expect(withoutMarker, body).not.toMatch(/(?<!\\)</);
  expect(withoutMarker, body).not.toMatch(/[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/);
  expect(withoutMarker, body).not.toMatch(/(?<!\\)\[[^\]]*(?<!\\)\]\(/);
}

describe.skipIf(!redisProbe.available)("hostile text through every field that reaches GitHub", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it("a forged marker in a release note neither bricks the issue nor raises its generation", async () => {
    const agent = world.agent();
    const first = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    await agent.release(first.lease, { outcome: "handoff", note: forgedMarker({}) });
    await world.sim.flush();

    const next = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "B" } });
    expect(next.lease.generation).toBe(2);
    expect(await agent.heartbeat(next.lease)).toMatchObject({ generation: 2, state: "active" });

    // After store loss too: the forged marker is not evidence, the signed claim comment is.
    await world.redis.eval(
      "for _, k in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', k) end",
      0,
      `${world.prefix}*`,
    );
    expect(await agent.heartbeat(next.lease)).toMatchObject({ generation: 2, state: "active" });
    await agent.release(next.lease, { outcome: "completed" });
    const third = await agent.claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "C" } });
    expect(third.lease.generation).toBe(3);
  });

  it("a forged appAssigned marker naming a human does not let an agent claim over that human", async () => {
    const agent = world.agent();
    const first = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    await agent.release(first.lease, {
      outcome: "handoff",
      note: forgedMarker({
        generation: 5,
        actor: { kind: "agent", login: "alice" },
        appAssigned: true,
      }),
    });
    world.sim.assign({ repo, issue: 1, login: "alice", assignees: ["alice"] });
    await world.sim.flush();
    await expect(
      agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "B" } }),
    ).rejects.toMatchObject({ status: 409, code: "human_held" });
  });

  it("no App comment carries a marker but its own signed one, a mention, HTML or a hidden link", async () => {
    // Phase edits are spaced a minute apart: durations long enough to heartbeat past that. Each claim's
    // ask for a person posts a comment of its own: the needs-human cooldown is shorter than that minute.
    await world.close();
    world = await startWorld({
      config:
        "taskClasses:\n  author: { ttl: 10m, reclaimAfter: 20m, heartbeat: 1m }\nnotify: { needsHumanCooldown: 30s }\n",
    });
    const agent = world.agent();
    for (const [i, text] of hostileCorpus.entries()) {
      const lease = (
        await agent.claim({
          repo,
          issue: 1,
          actor: { runtime: "claude@alice", sessionId: `s${i}@bob`, host: "h.example" },
          artifacts: `https://ci.example/${i}?q=@dave`,
        })
      ).lease;
      world.app.clock.now += 61_000;
      // Asking for a person posts the blocker in a comment of its own.
      await agent.heartbeat(lease, {
        phase: text.slice(0, 100),
        blocker: text.slice(0, 300),
        needsHuman: true,
      });
      await agent.release(lease, { outcome: "handoff", note: text.slice(0, 4000) });
    }
    await world.sim.flush();
    const bodies = appComments();
    expect(bodies.length).toBeGreaterThanOrEqual(hostileCorpus.length * 3);
    expect(bodies.filter((body) => body.includes("needs a person"))).toHaveLength(hostileCorpus.length);
    for (const body of bodies) expectInert(body);
    expect(world.sim.issue(repo, 1).assignees).toEqual([]);
    expect(fleet.login).toBe("fleet-bot");
  });
});
