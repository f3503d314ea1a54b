// The image smoke test (scripts/docker-smoke.sh) from vitest: opt-in with CLAIM_HOLD_DOCKER_SMOKE=1, since it
// builds an image (minutes); `.ci/run` runs the script itself whenever a Docker engine can be started.
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const script = resolve(import.meta.dirname, "../scripts/docker-smoke.sh");

describe.skipIf(process.env.CLAIM_HOLD_DOCKER_SMOKE !== "1")("the container image", () => {
  it("builds, serves health and readiness, claims/heartbeats/releases against the simulator and exits 0 on SIGTERM", async (ctx) => {
    const { stdout } = await run(script, [], { maxBuffer: 16 * 1024 * 1024, timeout: 900_000 });
    if (/^docker smoke: SKIPPED/m.test(stdout)) ctx.skip();
    for (const check of [
      "the image runs Node 24",
      "/healthz answers 200",
      "/readyz answers 200",
      "claim: 201, generation 1",
      "heartbeat: 200 on generation 1",
      "release: 200",
      "SIGTERM: the container exits 0",
      "docker compose config accepts compose.yaml",
    ]) {
      expect(stdout).toContain(check);
    }
    expect(stdout).toMatch(/^docker smoke: PASSED in \d+ s$/m);
  }, 900_000);
});
