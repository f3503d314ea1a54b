// The Gitea candidate index refresh on the simulator: a closing pull request counts only when its author can write, its permission read once per author; a repository without dependencies, and one issue whose dependencies cannot be read, do not fail the refresh.
import pino from "pino";
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

describe("createGiteaQueueRefresh and dependency reads", () => {
  it("a repository with dependencies disabled (404 on every dependency read) is indexed without blockers", async () => {
    const { sim, client } = fixture;
    const repo = sim.state.addRepo("octo/no-deps");
    repo.dependenciesEnabled = false;
    const issues = [1, 2].map((n) => sim.state.addIssue(repo, { title: `work ${n}`, author: "octo" }));
    const index = new MemoryQueueIndex();
    const refresh = createGiteaQueueRefresh({
      client,
      source: new GiteaCandidateSource(client),
      feed: index,
      now: () => clock.now,
    });
    const queueRepo = { installationId: giteaInstallation, repoId: repo.id, repo: "octo/no-deps" };
    const report = await refresh(queueRepo);
    expect(report).toMatchObject({ candidates: 2, truncated: false });
    for (const issue of issues)
      expect((await index.candidate(queueRepo, issue.number))?.blockers).toEqual([]);
    // The listing, the open PRs, one (404) dependency read per open issue.
    expect(report.githubRequests).toBe(1 + 1 + 2);
  });

  it("one issue whose dependencies cannot be read is left out, the rest indexed, a warning logged; its pages counted", async () => {
    const { sim, client } = fixture;
    const repo = sim.state.addRepo("octo/flaky");
    const [first, second, third] = [1, 2, 3].map((n) =>
      sim.state.addIssue(repo, { title: `work ${n}`, author: "octo" }),
    );
    for (let i = 0; i < 50; i++) {
      const done = sim.state.addIssue(repo, { title: `done ${i}`, author: "octo" });
      done.state = "closed";
      sim.state.addDependency(third!, done);
    }
    sim.fail({
      route: "GET /repos/{owner}/{repo}/issues/{index}/dependencies",
      issue: second!.number,
      status: 500,
    });
    const lines: string[] = [];
    const log = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
    const index = new MemoryQueueIndex();
    const refresh = createGiteaQueueRefresh({
      client,
      source: new GiteaCandidateSource(client),
      feed: index,
      now: () => clock.now,
      log,
      concurrency: 1,
    });
    const queueRepo = { installationId: giteaInstallation, repoId: repo.id, repo: "octo/flaky" };
    const report = await refresh(queueRepo);
    expect(report.candidates).toBe(2);
    expect(await index.candidate(queueRepo, first!.number)).not.toBeNull();
    expect(await index.candidate(queueRepo, second!.number)).toBeNull();
    expect((await index.candidate(queueRepo, third!.number))?.blockers).toEqual([]);
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ repo: "octo/flaky", issues: [second!.number] }),
    ]);
    // The listing, the open PRs, one dependency page each for the first two, two for the third (50 closed).
    expect(report.githubRequests).toBe(1 + 1 + 1 + 1 + 2);
  });
});
