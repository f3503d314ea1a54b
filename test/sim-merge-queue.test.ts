// The simulator's merge queue: signed `merge_group` webhooks shaped like GitHub's, the queue in GraphQL, check runs on group heads.
import { generateKeyPairSync } from "node:crypto";
import { createRequire } from "node:module";
import type { components } from "@octokit/openapi-webhooks-types";
import { Webhooks } from "@octokit/webhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  MERGE_GROUP_CHECK_QUERY,
  type MergeGroupCheckVariables,
} from "../src/providers/github/graphql/index.js";
import { type GitHubSimulator, startGitHubSimulator } from "../tools/github-sim/index.js";
import { createInstallationToken, simGraphql, startWebhookReceiver } from "./support/sim-helpers.js";

type ChecksRequested = components["schemas"]["webhook-merge-group-checks-requested"];
const examples = createRequire(import.meta.url)("@octokit/webhooks-examples/api.github.com/index.json") as {
  name: string;
  examples: { action?: string }[];
}[];

const appKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs1",
  format: "pem",
}) as string;
const repo = "octo/widgets";
const installationId = 42;
let sim: GitHubSimulator;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

function seed() {
  sim.seed({
    users: [
      { login: "fleet-bot", id: 501 },
      { login: "alice", id: 601 },
    ],
    repos: [{ fullName: repo, id: 1296269, collaborators: { "fleet-bot": "write", alice: "maintain" } }],
    installations: [{ id: installationId, account: "octo", repos: [repo] }],
    pulls: [
      { repo, number: 7, author: "fleet-bot", head: "agent/a/1", title: "One", body: "Closes #1" },
      { repo, number: 8, author: "alice", head: "feature", title: "Two" },
    ],
  });
}

function mergeGroupEvents(): { action: string; reason?: string; payload: ChecksRequested }[] {
  return receiver.received
    .filter((r) => r.headers["x-github-event"] === "merge_group")
    .map((r) => {
      const payload = JSON.parse(r.body);
      return { action: payload.action, ...(payload.reason ? { reason: payload.reason } : {}), payload };
    });
}

describe("the simulator's merge queue", () => {
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    sim = await startGitHubSimulator({ appKey, webhookUrl: receiver.url, webhookSecret: "s3cret" });
    seed();
  });
  afterEach(async () => {
    await sim.close();
    await receiver.close();
  });

  it("sends a signed merge_group.checks_requested per entry, shaped like GitHub's example, without the PRs in it", async () => {
    const [first, second] = sim.enqueue({ repo, pulls: [7, 8], login: "alice" });
    await sim.flush();
    const events = mergeGroupEvents();
    expect(events.map((e) => e.action)).toEqual(["checks_requested", "checks_requested"]);
    const verifier = new Webhooks({ secret: "s3cret" });
    for (const delivery of receiver.received) {
      expect(await verifier.verify(delivery.body, String(delivery.headers["x-hub-signature-256"]))).toBe(
        true,
      );
    }
    const example = examples
      .find((e) => e.name === "merge_group")!
      .examples.find((e) => e.action === "checks_requested") as ChecksRequested;
    const [one, two] = events.map((e) => e.payload);
    // The same fields as GitHub's example, at every level of `merge_group`.
    // (An organization's repository also carries `organization`; the simulator's owner is a plain account.)
    expect(Object.keys(one!).sort()).toEqual(
      Object.keys(example)
        .filter((k) => k !== "organization")
        .sort(),
    );
    expect(Object.keys(one!.merge_group).sort()).toEqual(Object.keys(example.merge_group).sort());
    expect(Object.keys(one!.merge_group.head_commit).sort()).toEqual(
      Object.keys(example.merge_group.head_commit).sort(),
    );
    expect(one!.merge_group).toMatchObject({
      head_sha: first!.headSha,
      head_ref: `refs/heads/gh-readonly-queue/main/pr-7-${first!.baseSha}`,
      base_ref: "refs/heads/main",
      head_commit: { id: first!.headSha },
    });
    // The second group stacks on the first: its parent is the first group's head.
    expect(two!.merge_group).toMatchObject({
      head_sha: second!.headSha,
      head_ref: `refs/heads/gh-readonly-queue/main/pr-8-${first!.headSha}`,
      base_sha: first!.headSha,
    });
    expect(one!.installation).toEqual({ id: installationId, node_id: expect.any(String) });
  });

  it("lists the queue's entries in GraphQL (MergeGroupCheck) and shows check runs on the group head through REST", async () => {
    const [group] = sim.enqueue({ repo, pulls: [7, 8], login: "alice" });
    const token = await createInstallationToken(sim, appKey, installationId);
    const post = await fetch(`${sim.baseUrl}/repos/${repo}/check-runs`, {
      method: "POST",
      headers: { authorization: `token ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "claim-hold",
        head_sha: group!.headSha,
        status: "completed",
        conclusion: "success",
        output: { title: "ok", summary: "s" },
      }),
    });
    expect(post.status).toBe(201);
    const listed = await fetch(
      `${sim.baseUrl}/repos/${repo}/commits/${group!.headSha}/check-runs?check_name=claim-hold`,
      { headers: { authorization: `token ${token}` } },
    );
    expect(await listed.json()).toMatchObject({
      total_count: 1,
      check_runs: [{ head_sha: group!.headSha, conclusion: "success", pull_requests: [] }],
    });
    const variables: MergeGroupCheckVariables = {
      owner: "octo",
      name: "widgets",
      branch: "main",
      headSha: group!.headSha,
      checkName: "claim-hold",
      appId: 1,
    };
    const data = await simGraphql(sim, token)<{
      repository: {
        mergeQueue: { entries: { nodes: unknown[] } };
        object: { checkSuites: { nodes: { checkRuns: { nodes: unknown[] } }[] } };
      };
    }>(MERGE_GROUP_CHECK_QUERY, { ...variables });
    const [second] = sim.mergeQueue(repo).slice(1);
    expect(data.repository.mergeQueue.entries.nodes).toEqual([
      {
        position: 1,
        headCommit: { oid: group!.headSha },
        pullRequest: {
          number: 7,
          headRefName: "agent/a/1",
          headRefOid: expect.stringMatching(/^[0-9a-f]{40}$/),
          author: { __typename: "User", login: "fleet-bot" },
          closingIssuesReferences: { nodes: [] },
        },
      },
      {
        position: 2,
        headCommit: { oid: second!.group.headSha },
        pullRequest: expect.objectContaining({ number: 8, headRefName: "feature" }),
      },
    ]);
    expect(data.repository.object.checkSuites.nodes[0]!.checkRuns.nodes).toEqual([
      expect.objectContaining({ name: "claim-hold", conclusion: "SUCCESS", title: "ok" }),
    ]);
  });

  it("rebuilds the groups behind a dequeued PR, and merging the head moves the base branch", async () => {
    sim.enqueue({ repo, pulls: [7, 8], login: "alice" });
    const before = sim.mergeQueue(repo);
    sim.dequeue({ repo, number: 7, login: "alice" });
    const after = sim.mergeQueue(repo);
    expect(after.map((e) => e.number)).toEqual([8]);
    expect(after[0]!.group.headSha).not.toBe(before[1]!.group.headSha);
    const merged = sim.mergeQueueHead({ repo, login: "alice" });
    await sim.flush();
    expect(merged.number).toBe(8);
    expect(sim.state.requireRepo(repo).branches.get("main")).toBe(after[0]!.group.headSha);
    expect(sim.issue(repo, 8).state).toBe("closed");
    expect(mergeGroupEvents().map((e) => `${e.action}${e.reason ? `:${e.reason}` : ""}`)).toEqual([
      "checks_requested",
      "checks_requested",
      "destroyed:dequeued",
      "destroyed:invalidated",
      "checks_requested",
      "destroyed:merged",
    ]);
  });
});
