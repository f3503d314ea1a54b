// An issue's REST events list (who assigned and unassigned whom), as the simulator serves it and the assignment provider reads it.
import { generateKeyPairSync } from "node:crypto";
import type { components as Rest } from "@octokit/openapi-types";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  GitHubAssignmentProvider,
  type IssueEventObject,
} from "../src/providers/github/github-assignment-provider.js";
import type { OctokitLike } from "../src/providers/github/octokit-like.js";
import { type GitHubSimulator, startGitHubSimulator } from "../tools/github-sim/index.js";
import { testSeal } from "./support/app-harness.js";
import { createInstallationToken } from "./support/sim-helpers.js";

const appKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs1",
  format: "pem",
}) as string;
const repo = "octo/widgets";
const installationId = 42;

// GitHub's own issue event type has every field the provider reads, typed as it reads them.
const _conforms = (event: Rest["schemas"]["issue-event"]): IssueEventObject => event;

let sim: GitHubSimulator;
let token: string;

/** The REST half of an Octokit client against the simulator: `{name}` path parameters, the rest as query. */
function simOctokit(reads: string[]): OctokitLike {
  return {
    graphql: () => Promise.reject(new Error("no GraphQL here")),
    async request(route, params = {}) {
      const [method, template] = route.split(" ") as [string, string];
      const query = new URLSearchParams();
      const used = new Set<string>();
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
        used.add(name);
        return encodeURIComponent(String(params[name]));
      });
      for (const [name, value] of Object.entries(params)) if (!used.has(name)) query.set(name, String(value));
      reads.push(`${path}?${query}`);
      const response = await fetch(`${sim.baseUrl}${path}?${query}`, {
        method,
        headers: { authorization: `token ${token}`, accept: "application/vnd.github+json" },
      });
      const data: unknown = await response.json();
      if (!response.ok)
        throw Object.assign(new Error(`HTTP ${response.status}`), { status: response.status });
      return { status: response.status, data, headers: { link: response.headers.get("link") ?? undefined } };
    },
  };
}

beforeEach(async () => {
  sim = await startGitHubSimulator({ appKey });
  sim.seed({
    users: [{ login: "alice" }, { login: "fleet-bot" }],
    repos: [
      {
        fullName: repo,
        collaborators: { alice: "maintain", "fleet-bot": "write" },
        issues: [{ number: 1, title: "Parser" }],
      },
    ],
    installations: [{ id: installationId, account: "octo", repos: [repo] }],
  });
  token = await createInstallationToken(sim, appKey, installationId);
});
afterEach(() => sim.close());

describe("an issue's events", () => {
  it("lists assignments and removals, oldest first, with the actor and the assignee", async () => {
    sim.assign({ repo, issue: 1, login: "alice", assignees: ["fleet-bot"] });
    sim.unassign({ repo, issue: 1, login: "alice", assignees: ["fleet-bot"] });
    const response = await fetch(`${sim.baseUrl}/repos/${repo}/issues/1/events`, {
      headers: { authorization: `token ${token}` },
    });
    const events = (await response.json()) as Rest["schemas"]["issue-event"][];
    expect(
      events.map((e) => [e.event, e.actor?.login, e.assignee?.login, e.performed_via_github_app]),
    ).toEqual([
      ["assigned", "alice", "fleet-bot", null],
      ["unassigned", "alice", "fleet-bot", null],
    ]);
  });

  it("tells who last changed an account's assignment, reading the newest page first", async () => {
    const reads: string[] = [];
    const provider = new GitHubAssignmentProvider({
      octokitFor: async () => simOctokit(reads),
      seal: testSeal,
    });
    const ref = { installationId, repo, issue: 1 };
    expect(await provider.lastEvidenceChange(ref, { assignee: "fleet-bot" })).toEqual({ kind: "unknown" });

    // 120 events: the newest is on the second page of 100.
    for (let i = 0; i < 60; i++) {
      sim.assign({ repo, issue: 1, login: "alice", assignees: ["fleet-bot"] });
      sim.unassign({ repo, issue: 1, login: "alice", assignees: ["fleet-bot"] });
    }
    reads.length = 0;
    expect(await provider.lastEvidenceChange(ref, { assignee: "Fleet-Bot" })).toEqual({
      kind: "removed",
      by: "alice",
      byPerson: true,
    });
    expect(reads.map((r) => new URLSearchParams(r.split("?")[1]).get("page"))).toEqual(["1", "2"]);

    sim.assign({ repo, issue: 1, login: "alice", assignees: ["fleet-bot"] });
    expect(await provider.lastEvidenceChange(ref, { assignee: "fleet-bot" })).toEqual({
      kind: "added",
      by: "alice",
      byPerson: true,
    });

    // The App's own removal (say a late write of an older generation) is no person's.
    const state = sim.state;
    const fleetBot = state.userByLogin("fleet-bot")!;
    state.removeAssignees(state.requireIssue(state.requireRepo(repo), 1), [fleetBot], state.botUser);
    expect(await provider.lastEvidenceChange(ref, { assignee: "fleet-bot" })).toEqual({
      kind: "removed",
      by: state.botUser.login,
      byPerson: false,
    });
  });

  it("tells who last added or removed a label, apart from other labels and from assignments", async () => {
    const provider = new GitHubAssignmentProvider({ octokitFor: async () => simOctokit([]), seal: testSeal });
    const ref = { installationId, repo, issue: 1 };
    const claimed = { label: "agent:claimed" };
    expect(await provider.lastEvidenceChange(ref, claimed)).toEqual({ kind: "unknown" });
    sim.assign({ repo, issue: 1, login: "alice", labels: ["agent:claimed"], assignees: ["fleet-bot"] });
    expect(await provider.lastEvidenceChange(ref, claimed)).toEqual({
      kind: "added",
      by: "alice",
      byPerson: true,
    });
    sim.unassign({ repo, issue: 1, login: "alice", labels: ["agent:claimed"] });
    sim.assign({ repo, issue: 1, login: "alice", labels: ["bug"] });
    expect(await provider.lastEvidenceChange(ref, claimed)).toEqual({
      kind: "removed",
      by: "alice",
      byPerson: true,
    });
    // The assignment's own history is another question.
    expect(await provider.lastEvidenceChange(ref, { assignee: "fleet-bot" })).toEqual({
      kind: "added",
      by: "alice",
      byPerson: true,
    });
  });
});
