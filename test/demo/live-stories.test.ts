// The demo's live stories against the demo's own stack: a stalled `claim-hold run` taken over and stopped by its event stream, an issue failing three times landing with a person, a budget paused and raised by `/budget`, and a `needs:gpu` issue routed by capability.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentSession } from "../../scripts/demo/agent-session.js";
import {
  budgetIssue,
  failingIssue,
  gpuIssue,
  runIssue,
  runLiveStories,
} from "../../scripts/demo/live-stories.js";
import { type NotifySink, startNotifySink } from "../../scripts/demo/notify-sink.js";
import { startDemoStack } from "../../scripts/demo/start-demo-stack.js";
import { Timeline } from "../../scripts/demo/timeline.js";
import { createClaimHoldClient } from "../../src/agent/client/index.js";
import type { LocalStack } from "../../tools/local-stack/start-local-stack.js";

const repo = "octo/widgets";
const fleet = { login: "fleet-bot", token: `ghp_demo${randomBytes(12).toString("hex")}` };
const config = [
  "taskClasses:",
  "  author: { ttl: 10s, reclaimAfter: 20s, heartbeat: 3s }",
  "  reviewer: { ttl: 10s, reclaimAfter: 20s, heartbeat: 3s, stallAfter: 6s, onStall: reclaimable }",
  "queue: { retryBackoff: 5s }",
  "budgets: { author: { maxUsd: 2, onExhausted: pause } }",
  "",
].join("\n");

let stack: LocalStack | undefined;
let sink: NotifySink | undefined;
afterEach(async () => {
  await stack?.stop();
  await sink?.close();
  vi.restoreAllMocks();
});

describe("the demo's live stories", () => {
  it("prints the stalled run stopped by its stream, the issue failing three times landing with a person, the budget paused and raised, and the GPU issue routed by capability", async () => {
    const printed: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    const timeline = new Timeline();
    sink = await startNotifySink(timeline);
    stack = await startDemoStack(
      { choice: { kind: "memory" }, label: "embedded memory store" },
      {
        notify: JSON.stringify([
          { url: sink.url, format: "json", events: ["stalled", "takeover", "needs-human"] },
        ]),
        logLevel: "silent",
        janitorIntervalSeconds: 2,
        reconcileEvery: 1_000,
      },
    );
    stack.sim.seed({
      users: [{ login: fleet.login, tokens: [fleet.token] }, { login: "alice" }],
      repos: [
        {
          fullName: repo,
          files: { ".github/claim-hold.yml": config },
          collaborators: { [fleet.login]: "write", alice: "maintain" },
          issues: [
            { number: runIssue, title: "Review the importer", labels: ["pinned"], author: "alice" },
            { number: failingIssue, title: "Migrate the session store", labels: ["pinned"], author: "alice" },
            { number: budgetIssue, title: "Port the exporter", labels: ["pinned"], author: "alice" },
            {
              number: gpuIssue,
              title: "Benchmark the model on a GPU",
              labels: ["needs:gpu"],
              author: "alice",
            },
          ],
        },
      ],
      installations: [{ account: "octo", repos: [repo] }],
    });
    await stack.sim.flush();
    timeline.restart();
    const app = stack.app;
    const settled = await Promise.allSettled(
      runLiveStories({
        sim: stack.sim,
        repo,
        timeline,
        appUrl: app.url,
        fleetToken: fleet.token,
        maintainer: "alice",
        heartbeatSeconds: 3,
        session: (name, runtime) =>
          new AgentSession(
            name,
            runtime,
            createClaimHoldClient({ baseUrl: app.url, githubToken: fleet.token, retries: 2 }),
            timeline,
          ),
      }),
    );
    vi.restoreAllMocks();
    const output = printed.join("");
    expect(settled.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);

    // The stalled run: the stalled notice, the takeover, and its command stopped by the stream.
    expect(timeline.counts.get("notify:stalled")).toBe(1);
    expect(output).toContain(
      `stalled octo/widgets#${runIssue}: cli/r8 heartbeats but made no progress since`,
    );
    expect(output).toMatch(/codex\/k8 +took over #8 → 201, generation 2 \(superseding r8 gen 1\)/);
    expect(output).toContain("got SIGTERM: stops before pushing anything");
    expect(output).toMatch(
      /its command was stopped \d+ ms after the takeover, from the lease's event stream — before its next heartbeat \(every 3 s\); exit 4/,
    );
    expect(timeline.counts.get("moment:run-stopped-by-stream")).toBe(1);

    // The issue that failed three times: label, one summary, and the line saying so.
    expect(output).toContain(
      "released #9 (failed: fails on rows from 2019: the legacy format needs a decision)",
    );
    expect(timeline.counts.get("moment:failing-landed")).toBe(1);
    expect(output).toContain(
      "#9 failed 3 times: out of the queue, labelled agent:needs-human, one summary comment to read",
    );
    expect(stack.sim.issue(repo, failingIssue).labels).toContain("agent:needs-human");

    // The budget: paused at $2 with the label and an ask, raised by /budget +5, heard on the stream, resumed.
    expect(output).toMatch(/goose\/j10 +heartbeat → waiting, paused: "budget"/);
    expect(output).toContain(
      `needs-human octo/widgets#${budgetIssue}: goose/j10 asks for a person: "budget reached: $2.10 of $2.00`,
    );
    expect(timeline.counts.get("moment:budget-paused")).toBe(1);
    expect(output).toContain(
      `#${budgetIssue} reached its $2 budget: the lease paused (not ended), labelled agent:over-budget, asked to answer /budget`,
    );
    expect(output).toContain(`commented /budget +5 on #${budgetIssue}`);
    expect(output).toContain("hears budget_raised on its lease's stream: $2 → $7 by @alice, resumed");
    expect(timeline.counts.get("moment:budget-resumed")).toBe(1);
    expect(output).toContain(
      `#${budgetIssue} raised to $7 by /budget: agent:over-budget off, budget_raised heard on the stream, heartbeat no longer paused: carries on`,
    );
    const budgeted = stack.sim.issue(repo, budgetIssue);
    expect(budgeted.labels).not.toContain("agent:over-budget");
    expect(
      budgeted.comments.some((comment) =>
        comment.body.includes("raised this issue's budget from $2.00 to $7.00"),
      ),
    ).toBe(true);

    // Capabilities: the session without gpu skips #11 (next and the queue view say why), the one declaring it gets #11.
    expect(output).toMatch(/aider\/m11 +next → 409 queue_empty \(skipped: [^)]*1 missingCapability\)/);
    expect(output).toContain(`queue view: #${gpuIssue} skipped (missingCapability, missing gpu)`);
    expect(output).toMatch(
      new RegExp(`pi/n11 +next → picked #${gpuIssue} \\(rank 1: [^)]*\\) → 201, generation 1`),
    );
    expect(timeline.counts.get("moment:capability-routed")).toBe(1);
    expect(output).toContain(
      `#${gpuIssue} (needs:gpu) went to the session declaring gpu; the one without skipped it`,
    );
    expect(timeline.violations).toEqual([]);
  }, 60_000);
});
