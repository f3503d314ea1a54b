// Gitea's issue dependencies as the queue reads them (GiteaDependencySource against the simulator): open blockers of any repository, the open issues an issue blocks, paged to a cap; a repository with dependencies disabled has none.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GiteaDependencySource,
  unreadDependenciesBlocker,
} from "../../src/providers/gitea/gitea-dependency-source.js";
import type { RequestCounter } from "../../src/providers/gitea/gitea-routes.js";
import { botToken, type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

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

  it("a repository with dependencies disabled: Gitea answers 404 and nothing blocks (no error)", async () => {
    const { state } = fixture.sim;
    const repo = state.addRepo("octo/no-deps");
    repo.dependenciesEnabled = false;
    const issue = state.addIssue(repo, { title: "work", author: "octo" });
    const source = new GiteaDependencySource(fixture.client);
    const queueRepo = { installationId: 1, repoId: repo.id, repo: "octo/no-deps" };
    const mark = fixture.sim.requests.length;
    expect(await source.openBlockers(queueRepo, issue.number)).toEqual([]);
    expect(await source.blockedIssues(queueRepo, issue.number)).toEqual([]);
    expect(fixture.sim.requests.slice(mark).map((r) => `${r.route} ${r.status}`)).toEqual([
      "GET /repos/{owner}/{repo}/issues/{index}/dependencies 404",
      "GET /repos/{owner}/{repo}/issues/{index}/blocks 404",
    ]);
    // The repository says so itself (`internal_tracker.enable_issue_dependencies`).
    const read = (await (
      await fetch(`${fixture.sim.url}/api/v1/repos/octo/no-deps`, {
        headers: { authorization: `token ${botToken}` },
      })
    ).json()) as { internal_tracker: { enable_issue_dependencies: boolean } };
    expect(read.internal_tracker.enable_issue_dependencies).toBe(false);
  });

  it("another error of the dependency read is thrown, not read as no blockers", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "work", author: "octo" });
    fixture.sim.fail({ route: "GET /repos/{owner}/{repo}/issues/{index}/dependencies", status: 500 });
    const source = new GiteaDependencySource(fixture.client);
    const queueRepo = { installationId: 1, repoId: fixture.repo.id, repo: "octo/widgets" };
    await expect(source.openBlockers(queueRepo, issue.number)).rejects.toThrow(/500/);
  });

  it("reads page after page until a short one: an open blocker after 50 closed ones blocks", async () => {
    const { state } = fixture.sim;
    const blocked = state.addIssue(fixture.repo, { title: "blocked", author: "octo" });
    for (let i = 0; i < 50; i++) {
      const done = state.addIssue(fixture.repo, { title: `done ${i}`, author: "octo" });
      done.state = "closed";
      state.addDependency(blocked, done);
    }
    const open = state.addIssue(fixture.repo, { title: "still open", author: "octo" });
    state.addDependency(blocked, open);
    const source = new GiteaDependencySource(fixture.client);
    const queueRepo = { installationId: 1, repoId: fixture.repo.id, repo: "octo/widgets" };
    const counter: RequestCounter = { requests: 0 };
    const mark = fixture.sim.requests.length;
    expect(await source.openBlockers(queueRepo, blocked.number, counter)).toEqual([
      `octo/widgets#${open.number}`,
    ]);
    expect(fixture.sim.requests.slice(mark).map((r) => r.query)).toEqual([
      "?page=1&limit=50",
      "?page=2&limit=50",
    ]);
    expect(counter.requests).toBe(2);
    // Exactly 50 on the first page: the empty second page ends it.
    const fifty = state.addIssue(fixture.repo, { title: "fifty", author: "octo" });
    for (let i = 0; i < 50; i++) {
      const done = state.addIssue(fixture.repo, { title: `done ${i}`, author: "octo" });
      done.state = "closed";
      state.addDependency(fifty, done);
    }
    const counted: RequestCounter = { requests: 0 };
    expect(await source.openBlockers(queueRepo, fifty.number, counted)).toEqual([]);
    expect(counted.requests).toBe(2);
  });

  it("past the page cap the issue counts as blocked (fail closed) and a warning is logged", async () => {
    const { state } = fixture.sim;
    const blocked = state.addIssue(fixture.repo, { title: "many", author: "octo" });
    for (let i = 0; i < 100; i++) {
      const done = state.addIssue(fixture.repo, { title: `done ${i}`, author: "octo" });
      done.state = "closed";
      state.addDependency(blocked, done);
    }
    const lines: string[] = [];
    const log = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
    const source = new GiteaDependencySource(fixture.client, { log, maxPages: 2 });
    const queueRepo = { installationId: 1, repoId: fixture.repo.id, repo: "octo/widgets" };
    const counter: RequestCounter = { requests: 0 };
    expect(await source.openBlockers(queueRepo, blocked.number, counter)).toEqual([
      unreadDependenciesBlocker("octo/widgets", blocked.number, 2),
    ]);
    expect(counter.requests).toBe(2);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ issue: blocked.number, pages: 2, which: "dependencies" });
  });
});
