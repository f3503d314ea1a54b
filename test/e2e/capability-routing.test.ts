// End to end over HTTP on real Redis and the GitHub simulator: an issue labelled needs:<capability> goes only to a caller that declares it; the queue view says why it skipped one.
import { afterEach, describe, expect, it } from "vitest";
import { QueueResponseSchema } from "../../src/contract/queue-responses.js";
import { probeRedis } from "../support/redis.js";
import { claimMarkers, type E2eWorld, fleet, reader, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

afterEach(() => world?.close());

interface Answer {
  status: number;
  body: Record<string, unknown> & {
    picked?: { issue: number; rank: number; reasons: string[] };
    error?: string;
    skipped?: Record<string, number>;
  };
}

async function call(
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  token = fleet.token,
): Promise<Answer> {
  const response = await fetch(`${world.app.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Answer["body"] };
}

const next = (sessionId: string, extra: Record<string, unknown> = {}) =>
  call("POST", "/api/v1/claims/next", { repo, actor: { runtime: "codex", sessionId }, ...extra });

const claim = (issue: number, sessionId: string, extra: Record<string, unknown> = {}) =>
  call("POST", "/api/v1/claims", { repo, issue, actor: { runtime: "codex", sessionId }, ...extra });

const queueView = (query = "") => call("GET", `/api/v1/repos/${repo}/queue${query}`, undefined, reader.token);

/** octo/widgets: #1 needs a GPU and is the most urgent, #2 needs nothing, #3 needs a GPU and Python. */
async function gpuWorld(config?: string, gpuLabel = "needs:gpu") {
  world = await startWorld({
    issues: [
      { number: 1, title: "Train the model", labels: [gpuLabel, "p0"] },
      { number: 2, title: "Fix the README" },
      { number: 3, title: "Port the kernel", labels: [gpuLabel, "needs:python"] },
    ],
    ...(config ? { config } : {}),
  });
  // The installation's refresh builds the index from GitHub's labels: nothing is seeded.
  await world.sim.flush();
  return world;
}

describe.skipIf(!redisProbe.available)("capability routing in claims/next", () => {
  it("skips a GPU issue for a caller without the capability and gives it to one that declares gpu", async () => {
    const { sim } = await gpuWorld();

    const view = await queueView();
    expect(view).toEqual({
      status: 200,
      body: {
        queue: [{ issue: 2, title: "Fix the README", rank: 1, reasons: ["unprioritized", "oldest"] }],
        skipped: [
          { issue: 1, reason: "missingCapability", missing: ["gpu"] },
          { issue: 3, reason: "missingCapability", missing: ["gpu", "python"] },
        ],
        truncated: false,
      },
    });
    expect(QueueResponseSchema.safeParse(view.body).success).toBe(true);
    // The view as a GPU caller sees it: #1 first, #3 still lacks python.
    expect((await queueView("?capabilities=GPU")).body).toMatchObject({
      queue: [
        { issue: 1, rank: 1, reasons: ["priority:p0", "oldest"] },
        { issue: 2, rank: 2 },
      ],
      skipped: [{ issue: 3, reason: "missingCapability", missing: ["python"] }],
    });

    const cpu = await next("cpu-1");
    expect(cpu.status).toBe(201);
    expect(cpu.body.picked).toEqual({ issue: 2, rank: 1, reasons: ["unprioritized", "oldest"] });
    const nothingLeft = await next("cpu-2");
    expect(nothingLeft).toMatchObject({ status: 409, body: { error: "queue_empty" } });
    expect(nothingLeft.body.skipped).toMatchObject({ missingCapability: 2, held: 1 });
    expect(claimMarkers(sim, 1)).toEqual([]);

    const gpu = await next("gpu-1", { capabilities: ["GPU", "gpu"] });
    expect(gpu.status).toBe(201);
    expect(gpu.body.picked).toEqual({ issue: 1, rank: 1, reasons: ["priority:p0", "oldest"] });
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [fleet.login] });
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 1, state: "active" }]);
    // #3 needs python as well: only a caller declaring both gets it.
    expect(await next("gpu-2", { capabilities: ["gpu"] })).toMatchObject({
      status: 409,
      body: { error: "queue_empty", skipped: { missingCapability: 1 } },
    });
    const both = await next("gpu-3", { capabilities: ["python", "gpu", "rust"] });
    expect(both.body.picked?.issue).toBe(3);
  });

  it("the repository's own prefix (queue.capabilityPrefix)", async () => {
    await gpuWorld('queue: { capabilityPrefix: "requires/" }\n', "requires/gpu");
    // needs:python means nothing under this prefix: #3 needs only gpu now.
    expect((await queueView()).body).toMatchObject({
      queue: [{ issue: 2 }],
      skipped: [
        { issue: 1, reason: "missingCapability", missing: ["gpu"] },
        { issue: 3, reason: "missingCapability", missing: ["gpu"] },
      ],
    });
    expect((await next("gpu-1", { capabilities: ["gpu"] })).body.picked?.issue).toBe(1);
    expect((await next("gpu-2", { capabilities: ["gpu"] })).body.picked?.issue).toBe(2);
    expect((await next("gpu-3", { capabilities: ["gpu"] })).body.picked?.issue).toBe(3);
  });

  it("a direct claim is checked only when the caller declares capabilities", async () => {
    const { sim } = await gpuWorld();
    const refused = await claim(3, "cpu-1", { capabilities: ["python"] });
    expect(refused).toEqual({
      status: 409,
      body: {
        error: "missing_capability",
        message:
          'octo/widgets#3 needs gpu, which this session did not declare; claim it without "capabilities" to take it anyway.',
        missing: ["gpu"],
      },
    });
    // Refused before any write: GitHub shows no claim.
    expect(sim.issue(repo, 3)).toMatchObject({ assignees: [] });
    expect(claimMarkers(sim, 3)).toEqual([]);
    // Named deliberately, without capabilities: claimed.
    expect((await claim(3, "cpu-1")).status).toBe(201);
    expect(claimMarkers(sim, 3)).toEqual([{ generation: 1, state: "active" }]);
    expect((await claim(1, "gpu-1", { capabilities: ["gpu"] })).status).toBe(201);
  });

  it("rejects malformed capabilities by field, with nothing claimed", async () => {
    const { sim } = await gpuWorld();
    for (const capabilities of [["g pu"], [""], Array.from({ length: 21 }, (_, i) => `c${i}`), "gpu"]) {
      const answer = await next("s1", { capabilities });
      expect(answer).toMatchObject({ status: 422, body: { error: "invalid_request" } });
      expect(String(answer.body.field)).toMatch(/^capabilities/);
    }
    expect(await claim(1, "s1", { capabilities: ["-gpu"] })).toMatchObject({
      status: 422,
      body: { error: "invalid_request", field: "capabilities.0" },
    });
    expect(await queueView("?capabilities=gpu,,x")).toMatchObject({
      status: 422,
      body: { error: "invalid_request" },
    });
    for (const issue of [1, 2, 3]) expect(claimMarkers(sim, issue)).toEqual([]);
  });
});
