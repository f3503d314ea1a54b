// Webhook sync (docs/reference/github-surfaces.md#what-the-app-does-on-github-events): real payload shapes delivered, signed, to the App; GitHub faked by nock.
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ClaimRecord } from "../src/domain/claim.js";
import { parseClaimMarker, renderClaimComment } from "../src/domain/claim-marker.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import type { Stores } from "../src/providers/stores.js";
import { type AppHarness, signedClaimComment, startApp } from "./support/app-harness.js";
import { loadFixture } from "./support/fixtures.js";
import {
  GitHubRequestLog,
  labelIds,
  nockApplyTransition,
  nockCreateInstallationToken,
  nockNoConfigFile,
  nockResolveLabels,
} from "./support/github-fake/index.js";

const installationId = 957387;
const repoId = 186853002;
const repo = "Codertocat/Hello-World";
const key = { installationId, repoId, issue: 1 };
const issueNodeId = "MDU6SXNzdWU0NDQ1MDAwNDE=";
const agentNodeId = "MDQ6VXNlcjkwMDAwMDAx";
const commentId = 492700400;
const commentNodeId = "MDEyOklzc3VlQ29tbWVudDQ5MjcwMDQwMA==";

let app: AppHarness;
let stores: Stores;
let github: GitHubRequestLog;

beforeEach(async () => {
  stores = createMemoryStores();
  github = new GitHubRequestLog();
  app = await startApp({ stores });
});

afterEach(async () => {
  await app.close();
  const pending = nock.pendingMocks();
  if (pending.length)
    console.log(
      "PENDING",
      pending,
      app.logs
        .filter((l) => l.includes('"level":50') || l.includes("GitHub request"))
        .map((l) => l.slice(0, 400)),
    );
  nock.cleanAll();
  expect(pending).toEqual([]);
});

/** An active agent claim of octo-agent on Codertocat/Hello-World#1, as a claim through the API leaves it. */
async function seedClaim(): Promise<ClaimRecord> {
  const outcome = await stores.claims.claim({
    key,
    repo,
    actor: { kind: "agent", login: "octo-agent", runtime: "claude-code", sessionId: "5f0c", host: "build-7" },
    taskClass: "author",
    durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
    branch: "agent/5f0c/1-fix-readme",
    tokenDigest: "a".repeat(64),
    takeover: false,
    now: app.clock.now,
    minGeneration: 0,
    appAssigned: true,
    issueNodeId,
    assigneeNodeId: agentNodeId,
    caps: { perSession: 1, perLogin: 50 },
  });
  if (outcome.kind !== "created") throw new Error(outcome.kind);
  await stores.claims.commitClaim(key, 1, { commentNodeId, commentId });
  return (await stores.claims.get(key))!;
}

/** What every first write of a fresh App costs: an installation token, the config lookups, the label ids. */
function mockFirstWrite() {
  nockCreateInstallationToken(github, installationId);
  nockNoConfigFile(github, repo);
  nockResolveLabels(github, repo);
}

/** A fresh App's first config read: an installation token, the repository's file, the org's `.github`. */
const githubConfigReads = [
  `POST /app/installations/${installationId}/access_tokens`,
  `GET /repos/${repo}/contents/.github/claim-hold.yml`,
  "GET /repos/Codertocat/.github/contents/.github/claim-hold.yml",
];

describe("issues.unassigned / issues.unlabeled", () => {
  it("revokes the claim when a human removes the App-made assignment: generation + 1, labels off, comment revoked", async () => {
    const before = await seedClaim();
    mockFirstWrite();
    const write = nockApplyTransition(github);
    const response = await app.deliver("issues", loadFixture("issues.unassigned-by-a-human"));
    expect(response.status).toBe(200);
    const after = await stores.claims.get(key);
    expect(after).toMatchObject({ state: "revoked", generation: 2, supersedes: 1 });
    expect(write.variables).toEqual({
      unassign: { assignableId: issueNodeId, assigneeIds: [agentNodeId] },
      removeLabels: {
        labelableId: issueNodeId,
        labelIds: [labelIds["agent:claimed"], labelIds["agent:stale"]],
      },
      edit0: { id: commentNodeId, body: signedClaimComment(before, "revoked", 2) },
      comment0: {
        subjectId: issueNodeId,
        body:
          "⛔ @Codertocat removed the claim's assignment; generation 1 is revoked and its holder must stop " +
          "working on this issue.",
      },
    });
    const beat = await stores.claims.heartbeat({
      key,
      generation: 1,
      tokenDigest: "a".repeat(64),
      now: app.clock.now,
      phaseEditEveryMs: 60_000,
    });
    expect(beat).toMatchObject({ kind: "gone", reason: "revoked" });
  });

  it("does nothing twice for a redelivery of the same delivery id", async () => {
    await seedClaim();
    mockFirstWrite();
    nockApplyTransition(github);
    const payload = loadFixture("issues.unassigned-by-a-human");
    await app.deliver("issues", payload, "delivery-fixed");
    const mark = github.count();
    await app.deliver("issues", payload, "delivery-fixed");
    expect(github.count()).toBe(mark);
    expect((await stores.claims.get(key))?.generation).toBe(2);
  });

  it("ignores the unassignment of someone the App did not assign, and any event sent by a bot", async () => {
    await seedClaim();
    const other = loadFixture("issues.unassigned-by-a-human");
    other.assignee = { ...other.assignee!, login: "someone-else" };
    await app.deliver("issues", other);
    const byBot = loadFixture("issues.unassigned-by-a-human");
    byBot.sender = { ...byBot.sender, login: "claim-hold[bot]", type: "Bot" };
    await app.deliver("issues", byBot);
    expect(github.count()).toBe(0);
    expect((await stores.claims.get(key))?.state).toBe("active");
  });

  it("an account that runs agents (the holder's own login acting as a user, or one learned from an agent claim) removing the claimed label or the assignment revokes nothing and writes nothing on GitHub", async () => {
    await seedClaim();
    // The config's first read (a cold cache) is all GitHub is asked: no label ids, no write.
    nockCreateInstallationToken(github, installationId);
    nockNoConfigFile(github, repo);
    const byHolder = { ...loadFixture("issues.labeled-by-a-human"), action: "unlabeled" };
    byHolder.sender = { ...byHolder.sender, login: "octo-agent" };
    await app.deliver("issues", byHolder);
    const unassignedByHolder = loadFixture("issues.unassigned-by-a-human");
    unassignedByHolder.sender = { ...unassignedByHolder.sender, login: "Octo-Agent" };
    await app.deliver("issues", unassignedByHolder);
    // A login that held an agent claim elsewhere in the installation (learned, in the store).
    await stores.fleetLogins.rememberFleetLogin(installationId, "ci-runner");
    const byFleet = { ...loadFixture("issues.labeled-by-a-human"), action: "unlabeled" };
    byFleet.sender = { ...byFleet.sender, login: "ci-runner" };
    await app.deliver("issues", byFleet);
    expect((await stores.claims.get(key))?.state).toBe("active");
    expect(github.since(0).map((entry) => `${entry.method} ${entry.path.split("?")[0]}`)).toEqual(
      githubConfigReads,
    );
  });

  it("revokes when a human removes the claimed label", async () => {
    await seedClaim();
    mockFirstWrite();
    const write = nockApplyTransition(github);
    const payload = { ...loadFixture("issues.labeled-by-a-human"), action: "unlabeled" };
    await app.deliver("issues", payload);
    expect((await stores.claims.get(key))?.state).toBe("revoked");
    expect(Object.keys(write.variables!).sort()).toEqual(["comment0", "edit0", "removeLabels", "unassign"]);
  });
});

describe("issues.labeled", () => {
  it("takes a hand-set claimed label off an unclaimed issue and explains once", async () => {
    mockFirstWrite();
    const first = nockApplyTransition(github);
    await app.deliver("issues", loadFixture("issues.labeled-by-a-human"));
    expect(first.variables).toEqual({
      removeLabels: { labelableId: issueNodeId, labelIds: [labelIds["agent:claimed"]] },
      comment0: {
        subjectId: issueNodeId,
        body: expect.stringContaining("`agent:claimed` is managed by claim-hold"),
      },
    });
    const second = nockApplyTransition(github);
    await app.deliver("issues", loadFixture("issues.labeled-by-a-human"));
    expect(Object.keys(second.variables!)).toEqual(["removeLabels"]);
  });

  it("leaves the label of a live claim alone, and other labels cost no GitHub request", async () => {
    await seedClaim();
    nockCreateInstallationToken(github, installationId);
    nockNoConfigFile(github, repo);
    await app.deliver("issues", loadFixture("issues.labeled-by-a-human"));
    const mark = github.count();
    for (let i = 0; i < 20; i++) {
      const payload = loadFixture("issues.labeled-by-a-human");
      payload.label = { ...payload.label!, name: `bug-${i}` };
      await app.deliver("issues", payload);
    }
    expect(github.count()).toBe(mark);
  });
});

describe("issues.closed, transferred, deleted", () => {
  it("completes the claim on close: labels off, comment completed, assignee kept", async () => {
    const before = await seedClaim();
    mockFirstWrite();
    const write = nockApplyTransition(github);
    await app.deliver("issues", loadFixture("issues.closed"));
    expect(await stores.claims.get(key)).toMatchObject({ state: "completed", generation: 1 });
    expect(write.variables).toEqual({
      removeLabels: {
        labelableId: issueNodeId,
        labelIds: [labelIds["agent:claimed"], labelIds["agent:stale"]],
      },
      edit0: { id: commentNodeId, body: signedClaimComment(before, "completed") },
    });
  });

  it.each(["issues.transferred", "issues.deleted"] as const)(
    "drops the record on %s; the holder gets gone",
    async (name) => {
      await seedClaim();
      await app.deliver("issues", loadFixture(name));
      expect(github.count()).toBe(0);
      const verify = await stores.claims.verify({
        key,
        generation: 1,
        tokenDigest: "a".repeat(64),
        now: app.clock.now,
      });
      expect(verify).toMatchObject({ kind: "gone" });
    },
  );
});

describe("issue_comment.edited / deleted", () => {
  it("re-posts a deleted claim comment from the store and records its new ids", async () => {
    const before = await seedClaim();
    nockCreateInstallationToken(github, installationId);
    const write = nockApplyTransition(github, { claimComment: { id: "IC_new", databaseId: 777 } });
    await app.deliver("issue_comment", loadFixture("issue_comment.deleted"));
    expect(write.variables).toEqual({
      claimComment: { subjectId: issueNodeId, body: signedClaimComment(before, "active") },
    });
    expect(await stores.claims.get(key)).toMatchObject({ commentNodeId: "IC_new", commentId: 777 });
    expect(parseClaimMarker(renderClaimComment(before, "active"))).toMatchObject({ kind: "marker" });
  });

  it("edits an altered claim comment back; other comments cost nothing", async () => {
    const before = await seedClaim();
    nockCreateInstallationToken(github, installationId);
    const write = nockApplyTransition(github);
    await app.deliver("issue_comment", loadFixture("issue_comment.edited"));
    expect(write.variables).toEqual({
      edit0: { id: commentNodeId, body: signedClaimComment(before, "active") },
    });
    const unrelated = loadFixture("issue_comment.edited");
    unrelated.comment = { ...unrelated.comment, id: 1 };
    const mark = github.count();
    await app.deliver("issue_comment", unrelated);
    expect(github.count()).toBe(mark);
  });
});

describe("push", () => {
  it("records a push to the claim's branch as activity, with no GitHub request", async () => {
    await seedClaim();
    app.clock.now += 60_000;
    await app.deliver("push", loadFixture("push.to-agent-branch"));
    expect((await stores.claims.get(key))?.lastPushAt).toBe(app.clock.now);
    expect(github.count()).toBe(0);
  });
});
