// Gitea's issue dependencies as the queue reads them (GiteaDependencySource against the simulator): open blockers of any repository, the open issues an issue blocks, one request each.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GiteaDependencySource } from "../../src/providers/gitea/gitea-dependency-source.js";
import { type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const clock = { now: Date.parse("2026-11-29T10:00:00Z") };
let fixture: GiteaSimFixture;
beforeAll(async () => {
  fixture = await startGiteaSimFixture(clock);
});
afterAll(() => fixture.sim.close());

describe("GiteaDependencySource", () => {
  it("openBlockers: the open issues `…/dependencies` lists, as owner/repo#n, closed ones left out", async () => {
    const { state } = fixture.sim;
    const repo = fixture.repo;
    const other = state.addRepo("octo/gears");
    const blocked = state.addIssue(repo, { title: "blocked", author: "octo" });
    const open = state.addIssue(repo, { title: "open blocker", author: "octo" });
    const closed = state.addIssue(repo, { title: "closed blocker", author: "octo" });
    closed.state = "closed";
    const elsewhere = state.addIssue(other, { title: "blocker elsewhere", author: "octo" });
    for (const blocker of [open, closed, elsewhere]) state.addDependency(blocked, blocker);
    const source = new GiteaDependencySource(fixture.client);
    const queueRepo = { installationId: 1, repoId: repo.id, repo: "octo/widgets" };
    const mark = fixture.sim.requests.length;

    expect(await source.openBlockers(queueRepo, blocked.number)).toEqual([
      `octo/widgets#${open.number}`,
      `octo/gears#${elsewhere.number}`,
    ]);
    expect(await source.blockedIssues(queueRepo, open.number)).toEqual([blocked.number]);
    // An issue of another repository that it blocks is not this repository's candidate.
    const gearsRepo = { installationId: 1, repoId: other.id, repo: "octo/gears" };
    expect(await source.blockedIssues(gearsRepo, elsewhere.number)).toEqual([]);
    expect(fixture.sim.requests.slice(mark).map((r) => `${r.route}${r.query}`)).toEqual([
      "GET /repos/{owner}/{repo}/issues/{index}/dependencies?page=1&limit=50",
      "GET /repos/{owner}/{repo}/issues/{index}/blocks?page=1&limit=50",
      "GET /repos/{owner}/{repo}/issues/{index}/blocks?page=1&limit=50",
    ]);
  });

  it("a closed blocked issue is not listed by blockedIssues; an issue without dependencies answers []", async () => {
    const { state } = fixture.sim;
    const blocker = state.addIssue(fixture.repo, { title: "blocker", author: "octo" });
    const done = state.addIssue(fixture.repo, { title: "done", author: "octo" });
    done.state = "closed";
    state.addDependency(done, blocker);
    const source = new GiteaDependencySource(fixture.client);
    const queueRepo = { installationId: 1, repoId: fixture.repo.id, repo: "octo/widgets" };
    expect(await source.blockedIssues(queueRepo, blocker.number)).toEqual([]);
    expect(await source.openBlockers(queueRepo, blocker.number)).toEqual([]);
  });
});
