// The simulator, the real App on real Redis stores, and a Redis notification outbox with the sinks a test names.
import { type ClaimHoldClient, createClaimHoldClient } from "../../../src/agent/client/index.js";
import type { NotifySink } from "../../../src/config/notify-sinks.js";
import type { SenderPolicy } from "../../../src/notify/notification-sender.js";
import type { OutboxStore } from "../../../src/providers/outbox-store.js";
import { RedisOutboxStore } from "../../../src/providers/redis/redis-outbox-store.js";
import type { GitHubSimulator } from "../../../tools/github-sim/index.js";
import { type LocalStack, startLocalStack } from "../../../tools/local-stack/start-local-stack.js";
import { type AppHarness, startApp, testAdminToken, testCredentials } from "../../support/app-harness.js";
import { uniqueKeyPrefix } from "../../support/redis.js";

export const repo = "octo/widgets";
export const installationId = 42;
export const fleet = { login: "fleet-bot", id: 501, token: "ghp_fleetbot00000000000000000000000000ntf" };
const maintainer = { login: "alice", id: 601, token: "ghp_alice0000000000000000000000000000ntf" };

export interface NotifyWorld {
  stack: LocalStack<AppHarness>;
  sim: GitHubSimulator;
  app: AppHarness;
  outbox: OutboxStore;
  agent(): ClaimHoldClient;
  close(): Promise<void>;
}

export async function startNotifyWorld(options: {
  sinks: NotifySink[];
  sender?: Partial<SenderPolicy>;
  /** `.github/claim-hold.yml` of octo/widgets. */
  config: string;
}): Promise<NotifyWorld> {
  let outbox: OutboxStore | undefined;
  const stack = await startLocalStack({
    redis: { kind: "shared", keyPrefix: uniqueKeyPrefix("notify-e2e") },
    credentials: testCredentials(1),
    startApp: (wiring) => {
      if (!wiring.redis) throw new Error("the notify world runs on Redis");
      outbox = new RedisOutboxStore({ redis: wiring.redis.client, keyPrefix: wiring.redis.keyPrefix });
      return startApp({
        stores: wiring.stores,
        fences: wiring.fences,
        githubBaseUrl: wiring.githubBaseUrl,
        appId: 1,
        now: Date.parse("2026-11-29T10:00:00Z"),
        adminToken: testAdminToken,
        notify: {
          notifySinks: options.sinks,
          outbox,
          // The test drives the sender (`tick()`); the background loop would only race it.
          notifySender: { pollMs: 3_600_000, ...options.sender },
        },
      });
    },
  });
  const { sim } = stack;
  sim.seed({
    users: [fleet, maintainer].map(({ login, id, token }) => ({ login, id, tokens: [token] })),
    repos: [
      {
        fullName: repo,
        id: 1296269,
        files: { ".github/claim-hold.yml": options.config },
        collaborators: { [fleet.login]: "write", [maintainer.login]: "maintain" },
        issues: [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({
          number: n,
          title: `Task ${n}`,
          author: maintainer.login,
        })),
      },
    ],
    installations: [{ id: installationId, account: "octo", repos: [repo] }],
  });
  await sim.flush();
  const world: NotifyWorld = {
    stack,
    sim,
    get app() {
      return stack.app;
    },
    outbox: outbox!,
    agent() {
      return createClaimHoldClient({
        baseUrl: stack.app.url,
        githubToken: fleet.token,
        retries: 0,
        sleep: async (ms) => {
          stack.app.clock.now += ms;
        },
      });
    },
    close: () => stack.stop(),
  };
  return world;
}
