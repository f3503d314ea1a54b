// Gitea replaces an issue's whole assignee list: the writer reads the list in the same write-limiter turn as its PATCH, so a person assigned while the write waited is kept (on the simulator).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMarkerSeal } from "../../src/domain/marker-seal.js";
import { GiteaAssignmentWriter } from "../../src/providers/gitea/gitea-assignment-writer.js";
import { GiteaClient } from "../../src/providers/gitea/gitea-client.js";
import { serialWriteLimiter } from "../../src/providers/gitea/serial-write-limiter.js";
import { botToken, type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const clock = { now: Date.parse("2026-12-03T10:00:00Z") };
let fixture: GiteaSimFixture;
beforeAll(async () => {
  fixture = await startGiteaSimFixture(clock);
});
afterAll(() => fixture.sim.close());

describe("GiteaAssignmentWriter, an assignee write waiting behind another issue's write", () => {
  it("keeps a person who assigned themselves while the write waited: the issue is read in the PATCH's turn", async () => {
    const { sim, repo } = fixture;
    const client = new GiteaClient({
      baseUrl: sim.url,
      token: botToken,
      writeLimiter: serialWriteLimiter({ spacingMs: 0 }),
    });
    const writer = new GiteaAssignmentWriter({ client, seal: createMarkerSeal("gitea-test-secret") });
    const busy = sim.state.addIssue(repo, { title: "Another issue's write", author: "maintainer" });
    const claimed = sim.state.addIssue(repo, { title: "Claimed meanwhile", author: "maintainer" });
    const ref = (issue: number) => ({ installationId: 1, repo: "octo/widgets", issue });

    const held = sim.hold({ writes: true, issue: busy.number });
    const first = writer.apply(ref(busy.number), { subjectNodeId: "", addComments: ["An audit line."] });
    await held.arrived;
    const mark = sim.requests.length;
    const claim = writer.apply(ref(claimed.number), { subjectNodeId: "", assign: ["fleet-bot"] });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const whileWaiting = sim.routesSince(mark);
    sim.people.assign({
      repo: "octo/widgets",
      issue: claimed.number,
      login: "maintainer",
      assignees: ["maintainer"],
    });
    held.release();
    const applied = await claim;
    await first;

    expect(claimed.assignees).toEqual(["maintainer", "fleet-bot"]);
    // The claim's read waits for its turn too: nothing of it reached Gitea before.
    expect(whileWaiting).toEqual([]);
    expect(applied.requests).toBe(2);
    expect(sim.routesSince(mark)).toEqual([
      "POST /repos/{owner}/{repo}/issues/{index}/comments",
      "GET /repos/{owner}/{repo}/issues/{index}",
      "PATCH /repos/{owner}/{repo}/issues/{index}",
    ]);
  });
});
