// The benchmarks still run: their smoke mode with tiny sizes, and the figures SPEC §11 pins that do not depend on speed.
import { describe, expect, it } from "vitest";
import { renderReport, runBenchmarks, smokeSizes } from "../bench/run.js";
import { probeRedis } from "./support/redis.js";

const redisProbe = await probeRedis();

describe.skipIf(!redisProbe.available)("bench:smoke", () => {
  it("runs every benchmark at tiny sizes and reports SPEC §11's request counts", async () => {
    const results = await runBenchmarks(smokeSizes);
    expect(results.heartbeat.githubRequestsDuringHeartbeats).toBe(0);
    expect(results.heartbeat.errors).toBe(0);
    expect(results.heartbeat.heartbeatRps).toBeGreaterThan(0);
    expect(results.heartbeat.redisSetRps).toBeGreaterThan(0);
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
    expect(renderReport(results, "test", "npm run bench:smoke")).toContain("## (d) Memory");
  }, 60_000);
});
