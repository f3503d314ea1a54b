// A simulated Gitea and an App serving it on the memory store, where the review of the Gitea lease invariants attacks them (late writes, store loss).
import {
  type ClaimHoldClient,
  createClaimHoldClient,
  isClaimHoldError,
} from "../../src/agent/client/index.js";
import type { SubjectKey } from "../../src/domain/claim.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { Stores } from "../../src/providers/stores.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import {
  type LocalStack,
  type StackWiring,
  startLocalStack,
} from "../../tools/local-stack/start-local-stack.js";
import {
  agentToken,
  botLogin,
  type GiteaSimFixture,
  giteaInstallation,
  handMadeHooksGitea,
  startGiteaSimFixture,
} from "../gitea/sim-fixture.js";
import { type AppHarness, startApp, testCredentials } from "../support/app-harness.js";

export const repo = "octo/widgets";
export const webhookSecret = "gitea-webhook-secret-for-review";
export const otherToken = "gitea-sim-other-agent-token-0000009";

export interface ReviewWorld {
  clock: { now: number };
  gitea: GiteaSimFixture;
  readonly app: AppHarness;
  stores: Stores;
  agent(token?: string): ClaimHoldClient;
  keyOf(issue: SimIssue): SubjectKey;
  labelsOf(issue: SimIssue): (string | undefined)[];
  deliver(event: string, payload: unknown, eventType?: string): Promise<{ status: number; body: unknown }>;
  /** A second App on the same Gitea with empty stores: the store lost everything. */
  restartWithFreshStores(): Promise<void>;
  close(): Promise<void>;
}

export async function startReviewWorld(now = Date.parse("2026-12-05T10:00:00Z")): Promise<ReviewWorld> {
  const clock = { now };
  const gitea = await startGiteaSimFixture(clock);
  gitea.sim.state.addUser("other-bot", otherToken);
  gitea.repo.permissions.set("other-bot", "write");
  const boot = (stores?: Stores) => (wiring: StackWiring) =>
    startApp({
      stores: stores ?? wiring.stores,
      ...(stores ? {} : { fences: wiring.fences }),
      githubBaseUrl: wiring.githubBaseUrl,
      appId: 1,
      now: clock.now,
      gitea: handMadeHooksGitea(gitea.sim, webhookSecret),
    });
  const stack: LocalStack<AppHarness> = await startLocalStack({
    credentials: testCredentials(1),
    startApp: boot(),
  });
  const world: ReviewWorld = {
    clock,
    gitea,
    stores: stack.stores,
    get app() {
      return stack.app;
    },
    agent: (token = agentToken) =>
      createClaimHoldClient({
        baseUrl: world.app.url,
        githubToken: token,
        forge: "gitea",
        retries: 0,
        timeoutMs: 60_000,
        sleep: async (ms) => {
          world.app.clock.now += ms;
        },
      }),
    keyOf: (issue) => ({ installationId: giteaInstallation, repoId: gitea.repo.id, issue: issue.number }),
    labelsOf: (issue) => issue.labelIds.map((id) => gitea.repo.labels.find((l) => l.id === id)?.name),
    deliver: (event, payload, eventType) =>
      gitea.sim.deliver({
        url: `${world.app.url}/api/gitea/webhooks`,
        secret: webhookSecret,
        event,
        ...(eventType ? { eventType } : {}),
        payload,
      }),
    async restartWithFreshStores() {
      const at = world.app.clock.now;
      world.stores = createMemoryStores();
      await stack.restartApp(boot(world.stores));
      world.app.clock.now = at;
    },
    async close() {
      await stack.stop();
      await gitea.sim.close();
    },
  };
  return world;
}

/** `{ status, code }` of a refused call, or the error rethrown. */
export const refusal = (error: unknown) =>
  isClaimHoldError(error) ? { status: error.status, code: error.code } : Promise.reject(error);

export function markersIn(issue: SimIssue): { generation: number; state: string; author: string }[] {
  return issue.comments.flatMap((comment) => {
    const match = /<!-- claim-hold:v1 (\{.*\}) -->/.exec(comment.body);
    if (!match) return [];
    const marker = JSON.parse(match[1]!) as { generation: number; state: string };
    return [{ generation: marker.generation, state: marker.state, author: comment.author }];
  });
}

export const botComments = (issue: SimIssue) => issue.comments.filter((c) => c.author === botLogin);

/** Waits until `predicate` holds (real time), at most `ms`. */
export async function until(predicate: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
