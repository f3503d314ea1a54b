// The Gitea candidate index refresh on the simulator: a closing pull request counts only when its author can write, its permission read once per author.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createGiteaQueueRefresh,
  GiteaCandidateSource,
} from "../../src/providers/gitea/gitea-candidate-source.js";
import { MemoryQueueIndex } from "../../src/providers/memory/memory-queue-index.js";
import { type GiteaSimFixture, giteaInstallation, startGiteaSimFixture } from "./sim-fixture.js";

const clock = { now: Date.parse("2026-12-03T10:00:00Z") };
let fixture: GiteaSimFixture;
beforeAll(async () => {
  fixture = await startGiteaSimFixture(clock);
});
afterAll(() => fixture.sim.close());

describe("createGiteaQueueRefresh and closing pull requests", () => {
  it("indexes a writer's closing PR, not a reader's from a branch of the repository: one permission read per author", async () => {
    const { sim, repo, client } = fixture;
    const byWriter = sim.state.addIssue(repo, { title: "A writer's PR closes it", author: "maintainer" });
    const byReader = sim.state.addIssue(repo, { title: "A reader's PRs close it", author: "maintainer" });
    sim.state.addPullRequest(repo, {
      title: "the writer's",
      author: "fleet-bot",
      body: `Fixes #${byWriter.number}`,
      headRef: "agent/s/1",
    });
    for (const n of [1, 2])
      sim.state.addPullRequest(repo, {
        title: `the reader's ${n}`,
        author: "reader",
        body: `Closes #${byReader.number}`,
        headRef: `reader/${n}`,
      });
    const index = new MemoryQueueIndex();
    const refresh = createGiteaQueueRefresh({
      client,
      source: new GiteaCandidateSource(client),
      feed: index,
      now: () => clock.now,
    });
    const queueRepo = { installationId: giteaInstallation, repoId: repo.id, repo: "octo/widgets" };
    const mark = sim.requests.length;
    const report = await refresh(queueRepo);

    expect((await index.candidate(queueRepo, byWriter.number))?.closingPullRequests).toEqual([
      { number: expect.any(Number), headRefName: "agent/s/1", author: "fleet-bot" },
    ]);
    expect((await index.candidate(queueRepo, byReader.number))?.closingPullRequests).toEqual([]);
    const permissionReads = sim
      .routesSince(mark)
      .filter((route) => route === "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission");
    expect(permissionReads).toHaveLength(2);
    // The listing, the open PRs, both permissions, and one dependency read per open issue.
    expect(report.githubRequests).toBe(1 + 1 + 2 + 2);
  });
});
