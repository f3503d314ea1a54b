// The benchmarks still run: their smoke mode with tiny sizes, and the GitHub request counts (docs/benchmarks.md#c-github-requests-per-transition), which do not depend on speed.
import { describe, expect, it } from "vitest";
import { renderReport, runBenchmarks, smokeSizes } from "../bench/run.js";
import { probeRedis } from "./support/redis.js";

const redisProbe = await probeRedis();

describe.skipIf(!redisProbe.available)("bench:smoke", () => {
  it("runs every benchmark at tiny sizes and reports SPEC §11's request counts", async () => {
    const results = await runBenchmarks(smokeSizes);
    const { targets } = results;
    const sizes = smokeSizes.targets;

    // Every heartbeat target answered every request, and heartbeats cost GitHub nothing.
    expect(targets.githubRequestsDuringHeartbeats).toBe(0);
    for (const round of targets.openLoop) {
      for (const run of [round.bare, round.probot, round.heartbeat]) {
        expect(run).toMatchObject({
          sent: sizes.openLoop.rate * sizes.openLoop.seconds,
          non2xx: 0,
          errors: 0,
        });
      }
    }
    for (const round of targets.closedLoop) {
      for (const run of [round.bare, round.probot, round.heartbeat]) {
        expect(run).toMatchObject({ non2xx: 0, errors: 0 });
        expect(run.rps).toBeGreaterThan(0);
      }
    }
    // Claims one at a time: a read and a write each; a burst: every claim created, in two write requests.
    expect(targets.spacedClaims.statuses).toEqual(Array(sizes.spacedClaims.count).fill(201));
    expect(targets.spacedClaims.requests).toEqual({
      "graphql:SubjectStatus": sizes.spacedClaims.count,
      "graphql:ApplyTransition": sizes.spacedClaims.count,
    });
    for (const burst of targets.bursts) {
      expect(burst.statuses).toEqual(Array(sizes.burst.claims).fill(201));
      expect(burst.subjectsPerMutation.reduce((sum, n) => sum + n, 0)).toBe(sizes.burst.claims);
      expect(burst.requests["graphql:SubjectStatus"]).toBe(sizes.burst.claims);
    }
    expect(targets.metrics.n).toBe(sizes.scrapes);
    expect(targets.count.map((c) => [c.size, c.claim.n])).toEqual(
      sizes.count.sizes.map((size) => [size, sizes.count.samples]),
    );

    expect(results.sweep.none).toMatchObject({ githubRequests: 0, actions: {} });
    expect(results.sweep.some).toMatchObject({ due: smokeSizes.due, actions: { reap: smokeSizes.due } });
    expect(results.sweep.some.githubRequests).toBe(2 * smokeSizes.due);
    const requests = Object.fromEntries(Object.entries(results.transitions).map(([k, v]) => [k, v.requests]));
    expect(requests).toMatchObject({
      claim: 2,
      heartbeat: 0,
      "check re-run, verdict unchanged": 1,
      "release (no PR)": 1,
      "janitor sweep, nothing due": 0,
      "reap (janitor sweep, one due)": 2,
    });
    expect(results.memory.rssAfterMb).toBeGreaterThan(0);
    const report = renderReport(results, "test", "npm run bench:smoke");
    expect(report).toContain("## Issue 14's targets");
    expect(report).toContain("## (d) Memory");
  }, 180_000);
});
