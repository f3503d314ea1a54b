// The Gitea writer runs one transition per issue at a time: the next one reads the issue only after the previous one's writes landed (on the simulator, the first write held).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderClaimComment } from "../../src/domain/claim-marker.js";
import { createMarkerSeal } from "../../src/domain/marker-seal.js";
import { GiteaAssignmentWriter } from "../../src/providers/gitea/gitea-assignment-writer.js";
import { agentClaimRecord } from "../support/claim-record.js";
import { type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const clock = { now: Date.parse("2026-12-02T10:00:00Z") };
let fixture: GiteaSimFixture;
beforeAll(async () => {
  fixture = await startGiteaSimFixture(clock);
});
afterAll(() => fixture.sim.close());

const labelsOf = (labelIds: number[]) =>
  labelIds.map((id) => fixture.repo.labels.find((l) => l.id === id)?.name);

describe("GiteaAssignmentWriter, two transitions on one issue", () => {
  it("the second plans from the issue after the first's writes: a label the first removes is added back", async () => {
    const { sim, repo, client } = fixture;
    const writer = new GiteaAssignmentWriter({ client, seal: createMarkerSeal("gitea-test-secret") });
    const issue = sim.state.addIssue(repo, { title: "Two writes", author: "maintainer" });
    issue.labelIds = [sim.state.label(repo, "agent:claimed").id];
    const ref = { installationId: 1, repo: "octo/widgets", issue: issue.number };

    const held = sim.hold({ writes: true, issue: issue.number });
    // An end of claim: the label goes.
    const first = writer.apply(ref, { subjectNodeId: "", removeLabels: ["agent:claimed"] });
    await held.arrived;
    // A new claim meanwhile: it wants the label, which the issue still shows.
    const second = writer.apply(ref, {
      subjectNodeId: "",
      assign: ["fleet-bot"],
      addLabels: ["agent:claimed"],
      createClaimComment: renderClaimComment(agentClaimRecord({ generation: 2 }), "active"),
    });
    const mark = sim.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Nothing of the second reached Gitea while the first's write is held.
    expect(sim.routesSince(mark)).toEqual([]);
    held.release();
    await Promise.all([first, second]);

    expect(sim.routesSince(mark)).toEqual([
      "DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}",
      "GET /repos/{owner}/{repo}/issues/{index}",
      "PATCH /repos/{owner}/{repo}/issues/{index}",
      "GET /repos/{owner}/{repo}/labels",
      "POST /repos/{owner}/{repo}/issues/{index}/labels",
      "POST /repos/{owner}/{repo}/issues/{index}/comments",
    ]);
    expect(labelsOf(issue.labelIds)).toEqual(["agent:claimed"]);
    expect(issue.assignees).toEqual(["fleet-bot"]);
  });
});
