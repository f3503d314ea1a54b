// Who last changed a claim's evidence on a Gitea issue: the timeline → evidence decision by table, and the provider's paged timeline read against the simulator, requests counted exactly.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMarkerSeal } from "../../src/domain/marker-seal.js";
import type { ClaimEvidence, EvidenceChange } from "../../src/providers/assignment-provider.js";
import {
  GiteaAssignmentProvider,
  maxTimelinePages,
} from "../../src/providers/gitea/gitea-assignment-provider.js";
import { newestEvidenceChange } from "../../src/providers/gitea/gitea-evidence-change.js";
import type { GiteaTimelineEntry } from "../../src/providers/gitea/gitea-schemas.js";
import { botLogin, type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const user = (login: string, id = 7) => ({ id, login });
let nextId = 1;
const assigned = (login: string, by: string | null, removed: boolean, byId = 7): GiteaTimelineEntry => ({
  id: nextId++,
  type: "assignees",
  body: "",
  user: by === null ? null : user(by, byId),
  assignee: user(login),
  removed_assignee: removed,
  label: null,
});
const labelled = (name: string, by: string, added: boolean): GiteaTimelineEntry => ({
  id: nextId++,
  type: "label",
  body: added ? "1" : "",
  user: user(by),
  assignee: null,
  removed_assignee: false,
  label: { name },
});
const comment = (by: string): GiteaTimelineEntry => ({
  id: nextId++,
  type: "comment",
  body: "hi",
  user: user(by),
});

const asAgent: ClaimEvidence = { assignee: "fleet-bot" };
/** What the App itself added: by its bot account, no person. */
const appAdded: EvidenceChange = { kind: "added", by: botLogin, byPerson: false };
const asLabel: ClaimEvidence = { label: "agent:claimed" };

describe("newestEvidenceChange (timeline entries oldest first)", () => {
  it.each<[string, GiteaTimelineEntry[], ClaimEvidence, EvidenceChange | null]>([
    ["no entries", [], asAgent, null],
    ["only comments", [comment("maintainer")], asAgent, null],
    ["the App assigned the agent", [assigned("fleet-bot", botLogin, false)], asAgent, appAdded],
    [
      "a person unassigned the agent after the App assigned it",
      [assigned("fleet-bot", botLogin, false), assigned("fleet-bot", "maintainer", true), comment("octo")],
      asAgent,
      { kind: "removed", by: "maintainer", byPerson: true },
    ],
    [
      "the App itself unassigned it (its bot login, any case)",
      [assigned("fleet-bot", botLogin, false), assigned("fleet-bot", botLogin.toUpperCase(), true)],
      asAgent,
      { kind: "removed", by: botLogin.toUpperCase(), byPerson: false },
    ],
    [
      "a person unassigned it, then the App assigned it again: the newest counts",
      [assigned("fleet-bot", "maintainer", true), assigned("fleet-bot", botLogin, false)],
      asAgent,
      appAdded,
    ],
    [
      "another login's unassignment is not the agent's",
      [assigned("fleet-bot", botLogin, false), assigned("maintainer", "maintainer", true)],
      asAgent,
      appAdded,
    ],
    [
      "the assignee's login compared without case",
      [assigned("Fleet-Bot", "maintainer", true)],
      asAgent,
      { kind: "removed", by: "maintainer", byPerson: true },
    ],
    [
      "a deleted account's ghost (negative id) is no person",
      [assigned("fleet-bot", "Ghost", true, -1)],
      asAgent,
      { kind: "removed", by: "Ghost", byPerson: false },
    ],
    [
      "no user at all is no person",
      [assigned("fleet-bot", null, true)],
      asAgent,
      { kind: "removed", by: "ghost", byPerson: false },
    ],
    ["a label entry is no assignee change", [labelled("fleet-bot", "maintainer", false)], asAgent, null],
    [
      "a person took the claimed label off (body empty)",
      [labelled("agent:claimed", botLogin, true), labelled("agent:claimed", "maintainer", false)],
      asLabel,
      { kind: "removed", by: "maintainer", byPerson: true },
    ],
    ['the App added the label (body "1")', [labelled("agent:claimed", botLogin, true)], asLabel, appAdded],
    [
      "another label's removal is not the claimed one's",
      [labelled("agent:claimed", botLogin, true), labelled("bug", "maintainer", false)],
      asLabel,
      appAdded,
    ],
    ["an assignee entry is no label change", [assigned("agent:claimed", "maintainer", true)], asLabel, null],
  ])("%s", (_name, entries, evidence, expected) => {
    expect(newestEvidenceChange(entries, evidence, botLogin)).toEqual(expected);
  });
});

describe("GiteaAssignmentProvider.lastEvidenceChange against the simulator", () => {
  const clock = { now: Date.parse("2026-12-01T10:00:00Z") };
  const timeline = "GET /repos/{owner}/{repo}/issues/{index}/timeline";
  let fixture: GiteaSimFixture;
  let provider: GiteaAssignmentProvider;
  beforeEach(async () => {
    fixture = await startGiteaSimFixture(clock);
    provider = new GiteaAssignmentProvider({
      client: fixture.client,
      seal: createMarkerSeal("timeline-secret"),
    });
  });
  afterEach(() => fixture.sim.close());
  const ref = (issue: number) => ({ installationId: 1, repo: "octo/widgets", issue });
  const maintainerUnassignsTheAgent = (issue: number) =>
    fixture.sim.people.unassign({
      repo: "octo/widgets",
      issue,
      login: "maintainer",
      assignees: ["fleet-bot"],
    });

  it("a person's unassignment after the App's assignment: the timeline to its empty page, then the bot's login", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "t", author: "octo" });
    await provider.apply(ref(issue.number), { subjectNodeId: "unused", assign: ["fleet-bot"] });
    maintainerUnassignsTheAgent(issue.number);
    const mark = fixture.sim.requests.length;
    expect(await provider.lastEvidenceChange(ref(issue.number), { assignee: "fleet-bot" })).toEqual({
      kind: "removed",
      by: "maintainer",
      byPerson: true,
    });
    expect(fixture.sim.routesSince(mark)).toEqual([timeline, timeline, "GET /user"]);
    expect(fixture.sim.requests.slice(mark, mark + 2).map((r) => r.query)).toEqual([
      "?page=1&limit=50",
      "?page=2&limit=50",
    ]);
  });

  it("the App's own label write is no person's: `added`; a person's removal of it through REST is", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "t", author: "octo" });
    await provider.apply(ref(issue.number), { subjectNodeId: "unused", addLabels: ["agent:claimed"] });
    expect(await provider.lastEvidenceChange(ref(issue.number), { label: "agent:claimed" })).toEqual(
      appAdded,
    );
    fixture.sim.people.setLabels({
      repo: "octo/widgets",
      issue: issue.number,
      login: "maintainer",
      labels: [],
    });
    expect(await provider.lastEvidenceChange(ref(issue.number), { label: "agent:claimed" })).toEqual({
      kind: "removed",
      by: "maintainer",
      byPerson: true,
    });
  });

  it("reads every full page: the newest change is on the last one (121 entries: 3 pages and the empty 4th)", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "t", author: "octo" });
    for (let i = 0; i < 119; i++) fixture.sim.state.addComment(issue, "octo", `comment ${i}`);
    fixture.sim.people.assign({
      repo: "octo/widgets",
      issue: issue.number,
      login: botLogin,
      assignees: ["fleet-bot"],
    });
    clock.now += 1000;
    maintainerUnassignsTheAgent(issue.number);
    const mark = fixture.sim.requests.length;
    expect(await provider.lastEvidenceChange(ref(issue.number), { assignee: "fleet-bot" })).toMatchObject({
      kind: "removed",
      byPerson: true,
    });
    expect(fixture.sim.routesSince(mark)).toEqual([timeline, timeline, timeline, timeline, "GET /user"]);
  });

  it("`unknown` with no entry about the evidence, and when the pages read do not reach the end", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "t", author: "octo" });
    expect(await provider.lastEvidenceChange(ref(issue.number), { assignee: "fleet-bot" })).toEqual({
      kind: "unknown",
    });
    for (let i = 0; i < 50 * maxTimelinePages; i++) fixture.sim.state.addComment(issue, "octo", `c${i}`);
    fixture.sim.people.unassign({
      repo: "octo/widgets",
      issue: issue.number,
      login: "maintainer",
      assignees: [],
    });
    const mark = fixture.sim.requests.length;
    expect(await provider.lastEvidenceChange(ref(issue.number), { assignee: "fleet-bot" })).toEqual({
      kind: "unknown",
    });
    expect(fixture.sim.routesSince(mark)).toEqual(Array(maxTimelinePages).fill(timeline));
  });
});
