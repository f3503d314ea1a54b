// The benchmarks still run: their smoke mode with tiny sizes, and the GitHub request counts (docs/benchmarks.md#c-github-requests-per-transition), which do not depend on speed.
import { describe, expect, it } from "vitest";
import { floorTargets } from "../bench/heartbeat-floor.js";
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

    // The heartbeat floor: every target answered, the floor ran one EVALSHA per heartbeat, the App at most one.
    for (const round of results.floor.rounds) {
      for (const target of floorTargets) {
        expect(round.closed[target]).toMatchObject({ non2xx: 0, errors: 0 });
        expect(round.open[target]).toMatchObject({
          sent: smokeSizes.floor.openLoop.rate * smokeSizes.floor.openLoop.seconds,
          non2xx: 0,
          errors: 0,
        });
      }
      const floor = round.open.floor;
      expect(floor.commands.evalsha?.calls).toBeGreaterThanOrEqual(floor.requests);
      expect(floor.commands.evalsha?.calls).toBeLessThan(floor.requests + 10);
      // The App sends heartbeats that overlap in one batch call (at most 64 each): on a busy machine
      // the evenly spaced ones overlap too. Beside them, the idle App's own scripts may run a few.
      const app = round.open.heartbeat;
      expect(app.commands.evalsha?.calls).toBeGreaterThanOrEqual(Math.ceil(app.requests / 64));
      expect(app.commands.evalsha?.calls).toBeLessThan(app.requests + 10);
    }
    const { scriptAlone } = results.floor;
    expect(scriptAlone.emptyScript.evalsha?.calls).toBeGreaterThanOrEqual(smokeSizes.floor.scriptCalls);
    expect(scriptAlone.heartbeatScript.evalsha?.calls).toBeGreaterThanOrEqual(smokeSizes.floor.scriptCalls);
    for (const claim of results.floor.claims) {
      expect(claim.status).toBe(201);
      expect(claim.commands.evalsha).toBeGreaterThan(0);
    }
    expect(results.floor.claims).toHaveLength(smokeSizes.floor.claims);

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
    expect(report).toContain("## Issue 24's heartbeat targets");
  }, 180_000);
});
