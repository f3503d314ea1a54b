// The fault schedule's world on either forge: the App on a private Redis behind a proxy, the forge's simulator, and one surface for its people, faults and webhooks.
import { giteaInstallationRecordId } from "../../../src/domain/forge.js";
import { type GiteaSimulator, type SimRepo, startGiteaSimulator } from "../../../tools/gitea-sim/index.js";
import type { GitHubSimulator } from "../../../tools/github-sim/index.js";
import { type LocalStack, startLocalStack } from "../../../tools/local-stack/start-local-stack.js";
import type { PrivateRedis } from "../../../tools/local-stack/start-private-redis.js";
import { testCredentials } from "../../support/app-harness.js";
import { type FakeTime, type FaultApp, faultApp } from "./fault-app.js";
import { RedisProxy } from "./redis-proxy.js";

export type FaultForgeName = "github" | "gitea";
/** The transition write, or the read of a subject (GitHub's GraphQL operations; Gitea's routes for them). */
export type FaultOperation = "ApplyTransition" | "SubjectStatus";

export interface FaultForge {
  forge: FaultForgeName;
  stack: LocalStack<FaultApp>;
  redis: PrivateRedis;
  proxy: RedisProxy;
  app: FaultApp;
  installationId: number;
  repoId: number;
  /** Two agent accounts; sessions 0–2 use the first. */
  agents: { login: string; token: string }[];
  /** The client's forge option (GitHub: none). */
  clientForge?: "gitea";
  addIssue(title: string): number;
  issue(number: number): { assignees: string[]; labels: string[]; state: string };
  /** alice's acts, each sent as the forge's webhook. */
  assign(issue: number, assignees: string[]): void;
  unassign(issue: number, assignees: string[]): void;
  comment(issue: number, body: string): void;
  closeIssue(issue: number): void;
  flush(): Promise<void>;
  failRequests(operation: FaultOperation, status: number, times: number): void;
  delayRequests(operation: FaultOperation, delayMs: number): void;
  clearFaults(): void;
  webhooks: {
    dropNext(count: number): void;
    hold(): void;
    release(): void;
    pending(): number[];
    reorder(seqs: number[]): void;
    /** First deliveries (no redeliveries) the App answered. */
    delivered(): number[];
    redeliver(seq: number): void;
  };
  arrivalMark(): number;
  /** Writes that reached the forge after the mark, described. */
  writesArrivedSince(mark: number): string[];
  /** Assignees the App's own account took off these issues. */
  appUnassigned(issues: number[]): { issue: number; login: string }[];
  stop(): Promise<void>;
}

const repo = "octo/widgets";

/** The simulator and a private Redis first; the App then connects through a proxy in front of that Redis. */
async function stackBehindProxy(time: FakeTime, keyPrefix: string) {
  const stack = await startLocalStack<FaultApp>({
    redis: { kind: "private", keyPrefix },
    credentials: testCredentials(),
    apps: 0,
  });
  if (!stack.redis?.server) throw new Error("the fault stack has no private Redis");
  const redis = stack.redis.server;
  const proxy = await RedisProxy.start(redis.port);
  return { stack, redis, proxy, time };
}

export async function startFaultForge(forge: FaultForgeName, time: FakeTime): Promise<FaultForge> {
  return forge === "github" ? githubForge(time) : giteaForge(time);
}

async function githubForge(time: FakeTime): Promise<FaultForge> {
  const agents = [
    { login: "fleet-bot", token: "ghp_fleetbot0000000000000000000000000001" },
    { login: "other-bot", token: "ghp_otherbot0000000000000000000000000002" },
  ];
  const { stack, redis, proxy } = await stackBehindProxy(time, "faults:");
  const sim: GitHubSimulator = stack.sim;
  const app = await stack.addApp(faultApp({ time, redisUrl: proxy.url }));
  sim.seed({
    users: [
      ...agents.map((a) => ({ login: a.login, tokens: [a.token] })),
      { login: "alice", tokens: ["ghp_alice000000000000000000000000000000003"] },
    ],
    repos: [
      {
        fullName: repo,
        id: 7001,
        collaborators: { "fleet-bot": "write", "other-bot": "write", alice: "maintain" },
      },
    ],
    installations: [{ id: 42, account: "octo", repos: [repo] }],
  });
  await sim.flush();
  /** GitHub writes that reached the simulator after the arrival mark (a write sent earlier and answered late is not one). */
  const mutationsArrivedSince = (mark: number) =>
    sim.requests
      .arrivedSince(mark)
      .filter((r) =>
        r.route.endsWith("/graphql")
          ? r.operationType === "mutation"
          : r.method !== "GET" && !r.path.includes("access_tokens"),
      );
  return {
    forge: "github",
    stack,
    redis,
    proxy,
    app,
    installationId: 42,
    repoId: 7001,
    agents,
    addIssue: (title) => sim.addIssue(repo, { title }).number,
    issue: (number) => sim.issue(repo, number),
    assign: (issue, assignees) => sim.assign({ repo, issue, login: "alice", assignees }),
    unassign: (issue, assignees) => sim.unassign({ repo, issue, login: "alice", assignees }),
    comment: (issue, body) => sim.comment({ repo, issue, login: "alice", body }),
    closeIssue: (issue) => sim.closeIssue({ repo, issue, login: "alice" }),
    flush: () => sim.flush(),
    failRequests(operation, status, times) {
      sim.fail({
        operation,
        status,
        times,
        ...(status === 403 || status === 429
          ? {
              body: { message: "You have exceeded a secondary rate limit." },
              headers: { "retry-after": "1" },
            }
          : {}),
      });
    },
    delayRequests: (operation, delayMs) => sim.fail({ operation, delayMs }),
    clearFaults: () => sim.clearFaults(),
    webhooks: {
      dropNext: (count) => sim.webhooks.dropNext(count),
      hold: () => sim.webhooks.hold(),
      release: () => sim.webhooks.release(),
      pending: () => sim.webhooks.pending().map((d) => d.seq),
      reorder: (seqs) => sim.webhooks.reorder(seqs),
      delivered: () =>
        sim
          .deliveries()
          .filter((d) => d.status === "delivered" && !d.redeliveryOf)
          .map((d) => d.seq),
      redeliver: (seq) => {
        sim.webhooks.redeliver(seq);
      },
    },
    arrivalMark: () => sim.requests.arrivalMark(),
    writesArrivedSince: (mark) =>
      mutationsArrivedSince(mark).map((r) =>
        r.route.endsWith("/graphql")
          ? `graphql ${r.operationName ?? "anonymous"} {${(r.mutationFields ?? []).join(", ")}}`
          : `${r.method} ${r.path}`,
      ),
    appUnassigned(issues) {
      return sim.deliveries({ event: "issues", action: "unassigned" }).flatMap((delivery) => {
        const payload = delivery.payload as {
          sender: { login: string };
          assignee?: { login: string };
          issue: { number: number };
        };
        if (
          !issues.includes(payload.issue.number) ||
          !payload.sender.login.endsWith("[bot]") ||
          delivery.redeliveryOf
        )
          return [];
        return [{ issue: payload.issue.number, login: payload.assignee?.login ?? "?" }];
      });
    },
    async stop() {
      await stack.stop();
      await proxy.close();
    },
  };
}

const giteaBot = { login: "claim-hold-bot", token: "gitea-fault-bot-token-0000000000000001" };
const giteaSecret = "gitea-fault-webhook-secret-0123456789";
/** Gitea's routes for the GitHub operations the schedule fails: any write about the issue, or the issue's read. */
const giteaMatch = (operation: FaultOperation) =>
  operation === "ApplyTransition" ? { writes: true } : { route: "GET /repos/{owner}/{repo}/issues/{index}" };

async function giteaForge(time: FakeTime): Promise<FaultForge> {
  const agents = [
    { login: "fleet-bot", token: "gitea-fault-fleet-token-000000000000001" },
    { login: "other-bot", token: "gitea-fault-other-token-000000000000002" },
  ];
  const { stack, redis, proxy } = await stackBehindProxy(time, "faults-gitea:");
  const sim: GiteaSimulator = await startGiteaSimulator({ now: () => time.wall });
  sim.state.addUser(giteaBot.login, giteaBot.token);
  for (const agent of agents) sim.state.addUser(agent.login, agent.token);
  sim.state.addUser("alice", "gitea-fault-alice-token-000000000000003");
  sim.state.addUser("octo");
  const target: SimRepo = sim.state.addRepo(repo, {
    [giteaBot.login]: "admin",
    "fleet-bot": "write",
    "other-bot": "write",
    alice: "admin",
  });
  const app = await stack.addApp(
    faultApp({
      time,
      redisUrl: proxy.url,
      gitea: {
        url: sim.url,
        token: giteaBot.token,
        webhookSecret: giteaSecret,
        manageWebhooks: false,
        installationId: 1,
        writeSpacingMs: 0,
      },
    }),
  );
  sim.hook(`${app.url}/api/gitea/webhooks`, giteaSecret);
  const issueOf = (number: number) => {
    const found = target.issues.find((i) => i.number === number);
    if (!found) throw new Error(`no Gitea issue #${number}`);
    return found;
  };
  const login = "alice";
  return {
    forge: "gitea",
    stack,
    redis,
    proxy,
    app,
    installationId: giteaInstallationRecordId(1),
    repoId: target.id,
    agents,
    clientForge: "gitea",
    addIssue: (title) => sim.state.addIssue(target, { title, author: login }).number,
    issue(number) {
      const issue = issueOf(number);
      return {
        assignees: issue.assignees,
        labels: issue.labelIds.flatMap((id) => target.labels.filter((l) => l.id === id).map((l) => l.name)),
        state: issue.state,
      };
    },
    assign: (issue, assignees) => sim.people.assign({ repo, issue, login, assignees }),
    unassign: (issue, assignees) => sim.people.unassign({ repo, issue, login, assignees }),
    comment: (issue, body) => sim.people.comment({ repo, issue, login, body }),
    closeIssue: (issue) => sim.people.close({ repo, issue, login }),
    flush: () => sim.webhooks.flush(),
    failRequests: (operation, status, times) => {
      sim.fail({ ...giteaMatch(operation), status, times });
    },
    delayRequests: (operation, delayMs) => {
      sim.fail({ ...giteaMatch(operation), delayMs });
    },
    clearFaults: () => sim.clearFaults(),
    webhooks: {
      dropNext: (count) => sim.webhooks.dropNext(count),
      hold: () => sim.webhooks.hold(),
      release: () => sim.webhooks.release(),
      pending: () => sim.webhooks.pending().map((d) => d.seq),
      reorder: (seqs) => sim.webhooks.reorder(seqs),
      delivered: () =>
        sim.webhooks.deliveries.filter((d) => d.status === "delivered" && !d.redeliveryOf).map((d) => d.seq),
      redeliver: (seq) => {
        sim.webhooks.redeliver(seq);
      },
    },
    arrivalMark: () => sim.arrivalMark(),
    writesArrivedSince: (mark) =>
      sim
        .arrivedSince(mark)
        .filter((r) => r.method !== "GET")
        .map((r) => `${r.method} ${r.path}`),
    appUnassigned: (issues) =>
      sim.assigneeChanges
        .filter((c) => c.action === "unassigned" && c.by === giteaBot.login && issues.includes(c.issue))
        .map((c) => ({ issue: c.issue, login: c.login })),
    async stop() {
      await stack.stop();
      await proxy.close();
      await sim.close();
    },
  };
}
