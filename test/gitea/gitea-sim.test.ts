// The Gitea simulator against Gitea's own API description (test/fixtures/gitea): its routes are swagger's, its bodies carry no invented field.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restRoutes } from "../../tools/gitea-sim/index.js";
import {
  renderComment,
  renderGitBranch,
  renderHook,
  renderIssue,
  renderLabel,
  renderPermissions,
  renderRepo,
  renderTimelineEntry,
  renderUser,
  timelineOf,
} from "../../tools/gitea-sim/render.js";
import {
  botLogin,
  botToken,
  type GiteaSimFixture,
  maintainerToken,
  readerToken,
  startGiteaSimFixture,
} from "./sim-fixture.js";

interface Contract {
  routes: { method: string; path: string }[];
  definitions: Record<string, string[]>;
}
const contract = JSON.parse(
  readFileSync(new URL("../fixtures/gitea/gitea-api-contract.json", import.meta.url), "utf8"),
) as Contract;

const clock = { now: Date.parse("2026-12-01T10:00:00Z") };
let fixture: GiteaSimFixture;
beforeAll(async () => {
  fixture = await startGiteaSimFixture(clock);
});
afterAll(() => fixture.sim.close());

const keysOf = (value: object) => Object.keys(value).sort();

describe("the Gitea simulator", () => {
  it.each(restRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    "%s is a route of Gitea's swagger",
    (_, route) => {
      expect(contract.routes).toContainEqual(
        expect.objectContaining({ method: route.method, path: route.path }),
      );
    },
  );

  it("renders users, repositories, issues, labels and comments with their definitions' fields only", () => {
    const { state } = fixture.sim;
    const issue = state.addIssue(fixture.repo, { title: "Shape", author: "octo", labels: ["bug"] });
    const comment = state.addComment(issue, "octo", "hello");
    issue.assignees = ["fleet-bot"];
    const within = (definition: string, body: object) =>
      expect(keysOf(body).filter((key) => !contract.definitions[definition]?.includes(key))).toEqual([]);
    within("User", renderUser(state, "octo"));
    within("Repository", renderRepo(state, fixture.repo));
    const rendered = renderIssue(state, fixture.repo, issue);
    within("Issue", rendered);
    within("RepositoryMeta", rendered.repository);
    within("Label", renderLabel(state.label(fixture.repo, "bug")));
    within("Comment", renderComment(state, fixture.repo, issue, comment));
  });

  it("serves an issue's timeline with `TimelineComment` fields only: comments, and assignee and label changes by whoever made them, oldest first, `null` past the end", async () => {
    const { state } = fixture.sim;
    const repo = state.addRepo("octo/timeline", { [botLogin]: "admin", maintainer: "admin" });
    const issue = state.addIssue(repo, { title: "Timeline", author: "octo" });
    const call = (method: string, path: string, token: string, body?: unknown) =>
      fetch(`${fixture.sim.url}/api/v1/repos/octo/timeline/issues/${issue.number}${path}`, {
        method,
        headers: { authorization: `token ${token}`, "content-type": "application/json" },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const claimed = state.label(repo, "agent:claimed");
    await call("PATCH", "", botToken, { assignees: ["fleet-bot"] });
    await call("POST", "/labels", botToken, { labels: [claimed.id] });
    state.addComment(issue, "octo", "hello");
    fixture.sim.people.unassign({
      repo: "octo/timeline",
      issue: issue.number,
      login: "maintainer",
      assignees: ["fleet-bot"],
    });
    await call("DELETE", `/labels/${claimed.id}`, maintainerToken);
    const page = (await (await call("GET", "/timeline?page=1&limit=50", botToken)).json()) as Record<
      string,
      unknown
    >[];
    expect(
      page.map((e) => ({
        type: e.type,
        by: (e.user as { login: string }).login,
        assignee: (e.assignee as { login: string } | null)?.login ?? null,
        removed: e.removed_assignee,
        label: (e.label as { name: string } | null)?.name ?? null,
        body: e.body,
      })),
    ).toEqual([
      { type: "assignees", by: botLogin, assignee: "fleet-bot", removed: false, label: null, body: "" },
      { type: "label", by: botLogin, assignee: null, removed: false, label: "agent:claimed", body: "1" },
      { type: "comment", by: "octo", assignee: null, removed: false, label: null, body: "hello" },
      { type: "assignees", by: "maintainer", assignee: "fleet-bot", removed: true, label: null, body: "" },
      { type: "label", by: "maintainer", assignee: null, removed: false, label: "agent:claimed", body: "" },
    ]);
    for (const entry of page)
      expect(keysOf(entry).filter((key) => !contract.definitions.TimelineComment?.includes(key))).toEqual([]);
    for (const entry of timelineOf(issue))
      expect(keysOf(renderTimelineEntry(state, repo, issue, entry))).toEqual(keysOf(page[0]!));
    expect(await (await call("GET", "/timeline?page=2&limit=50", botToken)).json()).toBeNull();
  });

  it("renders a branch and its head commit with `Branch` and `PayloadCommit` fields only, and answers open pull requests and branches", async () => {
    const { state } = fixture.sim;
    const repo = state.addRepo("octo/branches");
    const sha = state.pushBranch(repo, "agent/s1/1-task", "work");
    const within = (definition: string, body: object) =>
      expect(keysOf(body).filter((key) => !contract.definitions[definition]?.includes(key))).toEqual([]);
    const branch = renderGitBranch(state, repo, "agent/s1/1-task", repo.branches.get("agent/s1/1-task")!);
    within("Branch", branch);
    within("PayloadCommit", branch.commit);
    const pr = state.addPullRequest(repo, { title: "PR", author: "octo", headRef: "agent/s2/2-task" });
    state.addPullRequest(repo, { title: "Closed", author: "octo", headRef: "agent/s3/3-task" }).state =
      "closed";
    const get = (path: string) =>
      fetch(`${fixture.sim.url}/api/v1/repos/octo/branches${path}`, {
        headers: { authorization: `token ${botToken}` },
      });
    const named = await get("/branches/agent/s1/1-task");
    expect(await named.json()).toMatchObject({ name: "agent/s1/1-task", commit: { id: sha } });
    expect(await (await get("/branches/agent/s2/2-task")).json()).toMatchObject({
      commit: { id: pr.pull?.headSha },
    });
    expect((await get("/branches/nope")).status).toBe(404);
    const open = (await (await get("/pulls?state=open")).json()) as { number: number }[];
    expect(open.map((p) => p.number)).toEqual([pr.number]);
  });

  it("answers the bot's token, refuses a request without one (401), and logs each request with its route", async () => {
    const mark = fixture.sim.requests.length;
    const user = await fetch(`${fixture.sim.url}/api/v1/user`, {
      headers: { authorization: `token ${botToken}` },
    });
    expect(await user.json()).toMatchObject({ login: botLogin });
    expect((await fetch(`${fixture.sim.url}/api/v1/user`)).status).toBe(401);
    expect(fixture.sim.routesSince(mark)).toEqual(["GET /user", "GET /user"]);
    expect(fixture.sim.requests.slice(mark).map((r) => r.status)).toEqual([200, 401]);
  });

  it("keeps only issues that carry every label named in `labels`, pull requests out with `type=issues`", async () => {
    const { state } = fixture.sim;
    const repo = state.addRepo("octo/labels");
    const both = state.addIssue(repo, { title: "both", author: "octo", labels: ["a", "b"] });
    state.addIssue(repo, { title: "a only", author: "octo", labels: ["a"] });
    state.addIssue(repo, { title: "a pull", author: "octo", labels: ["a", "b"], isPull: true });
    const answer = await fetch(
      `${fixture.sim.url}/api/v1/repos/octo/labels/issues?state=open&type=issues&labels=a,b`,
      {
        headers: { authorization: `token ${botToken}` },
      },
    );
    expect(((await answer.json()) as { number: number }[]).map((i) => i.number)).toEqual([both.number]);
  });

  it("keeps repository hooks as Gitea does: `Hook` fields only, the secret never answered, admins only, event groups expanded", async () => {
    const { state } = fixture.sim;
    const repo = state.addRepo("octo/hooked", { [botLogin]: "admin", reader: "read" });
    const call = (method: string, path: string, token: string, body?: unknown) =>
      fetch(`${fixture.sim.url}/api/v1/repos/octo/hooked${path}`, {
        method,
        headers: { authorization: `token ${token}`, "content-type": "application/json" },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const created = await call("POST", "/hooks", botToken, {
      type: "gitea",
      active: true,
      events: ["issues", "push"],
      config: {
        url: "https://app.example.com/api/gitea/webhooks",
        content_type: "json",
        secret: "hook-secret",
      },
    });
    expect(created.status).toBe(201);
    const hook = (await created.json()) as { id: number; config: Record<string, string>; events: string[] };
    expect(hook.config).toEqual({ url: "https://app.example.com/api/gitea/webhooks", content_type: "json" });
    expect(hook.events).toEqual([
      "issues",
      "issue_assign",
      "issue_label",
      "issue_milestone",
      "issue_comment",
      "push",
    ]);
    expect(repo.hooks[0]?.secret).toBe("hook-secret");
    const within = (definition: string, body: object) =>
      expect(keysOf(body).filter((key) => !contract.definitions[definition]?.includes(key))).toEqual([]);
    within("Hook", renderHook(repo.hooks[0]!));
    within("Permission", renderPermissions(state, repo, botLogin));
    // An edit replaces the event list: none named leaves `push` only.
    const edited = await call("PATCH", `/hooks/${hook.id}`, botToken, { config: { content_type: "form" } });
    expect(await edited.json()).toMatchObject({ events: ["push"], config: { content_type: "form" } });
    expect((await call("GET", "/hooks", readerToken)).status).toBe(403);
    expect(
      (await call("POST", "/hooks", botToken, { type: "gitea", config: { url: "x", content_type: "xml" } }))
        .status,
    ).toBe(422);
    expect((await call("DELETE", `/hooks/${hook.id}`, botToken)).status).toBe(204);
    expect(repo.hooks).toEqual([]);
    const mine = await fetch(`${fixture.sim.url}/api/v1/user/repos?limit=50`, {
      headers: { authorization: `token ${readerToken}` },
    });
    const rights = ((await mine.json()) as { full_name: string; permissions: object }[]).find(
      (r) => r.full_name === "octo/hooked",
    );
    expect(rights?.permissions).toEqual({ admin: false, push: false, pull: true });
  });
});
