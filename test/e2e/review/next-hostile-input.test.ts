// Review: hostile bodies and queries on claims/next and the queue view answer 4xx naming the field, and change nothing.
import { afterEach, describe, expect, it } from "vitest";
import type { CandidateFacts, QueueRepo } from "../../../src/providers/queue-store.js";
import { probeRedis } from "../../support/redis.js";
import { type E2eWorld, fleet, installationId, repo, startWorld } from "../support/e2e-world.js";

const redisProbe = await probeRedis();
const queueRepo: QueueRepo = { installationId, repoId: 1296269, repo };
let world: E2eWorld;

afterEach(() => world?.close());

const facts = (issue: number): CandidateFacts => ({
  issue,
  title: `Task ${issue}`,
  createdAt: issue,
  labels: [],
  assignees: [],
  blockers: [],
  openSubIssues: 0,
  closingPullRequests: [],
});

async function send(method: string, path: string, body?: string) {
  const response = await fetch(`${world.app.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${fleet.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body }),
  });
  return { status: response.status, body: (await response.json()) as { error: string; message: string } };
}

const actor = { runtime: "codex", sessionId: "s" };

describe.skipIf(!redisProbe.available)("hostile input on claims/next and the queue view", () => {
  it("answers 4xx {error, message} naming the field, and leaves no claim or reservation", async () => {
    world = await startWorld({ issues: [{ number: 1, title: "Task 1" }] });
    await world.stores.queue.replaceCandidates(queueRepo, [facts(1)], world.app.clock.now);
    const bodies: [unknown, number, string, string][] = [
      [{ repo, actor, labels: "agent-ready" }, 422, "invalid_request", "labels"],
      [
        { repo, actor, labels: Array.from({ length: 21 }, (_, i) => `l${i}`) },
        422,
        "invalid_request",
        "labels",
      ],
      [{ repo, actor, excludeLabels: ["a\u0000b"] }, 422, "invalid_request", "excludeLabels.0"],
      [{ repo, actor, includeTakeovers: "yes" }, 422, "invalid_request", "includeTakeovers"],
      [{ repo, actor, takeover: true }, 422, "invalid_request", "takeover"],
      [{ repo, actor, ignoreBlockers: true }, 422, "invalid_request", "ignoreBlockers"],
      [{ repo, actor: { ...actor, sessionKey: "short" } }, 422, "invalid_request", "actor.sessionKey"],
      [{ repo, actor, taskClass: "boss" }, 422, "invalid_request", "taskClass"],
      [{ repo, actor, scope: ["/etc/**"] }, 422, "invalid_request", "scope.0"],
      [{ repo, actor, artifacts: "javascript:alert(1)" }, 422, "invalid_request", "artifacts"],
      [{ repo: "octo", actor }, 422, "invalid_request", "repo"],
      [[1, 2], 422, "invalid_request", "(body)"],
      [{ repo, actor, labels: ["x".repeat(70_000)] }, 413, "payload_too_large", "64 KiB"],
    ];
    for (const [body, status, error, named] of bodies) {
      const answer = await send("POST", "/api/v1/claims/next", JSON.stringify(body));
      expect({ status: answer.status, error: answer.body.error }).toEqual({ status, error });
      expect(answer.body.message).toContain(named);
    }
    expect((await send("POST", "/api/v1/claims/next", "{")).status).toBe(400);
    for (const query of ["limit=0", "limit=201", "limit=abc"]) {
      const answer = await send("GET", `/api/v1/repos/${repo}/queue?${query}`);
      expect({ query, status: answer.status }).toEqual({ query, status: 422 });
      expect(answer.body.error).toBe("invalid_request");
    }
    // Nothing was claimed or reserved: a pick takes #1 at once.
    expect(await world.stores.claims.get({ installationId, repoId: queueRepo.repoId, issue: 1 })).toBeNull();
    const picked = await send("POST", "/api/v1/claims/next", JSON.stringify({ repo, actor }));
    expect(picked.status).toBe(201);
  });
});
