// One end-to-end world on Gitea: the Gitea simulator (its repository hook pointed at the App), the real App serving it on real Redis stores, and agents.
import type { ClaimHoldClient } from "../../../src/agent/client/index.js";
import { createClaimHoldClient } from "../../../src/agent/client/index.js";
import type { SubjectKey } from "../../../src/domain/claim.js";
import { giteaInstallationRecordId } from "../../../src/domain/forge.js";
import type { Stores } from "../../../src/providers/stores.js";
import { type GiteaSimulator, type SimRepo, startGiteaSimulator } from "../../../tools/gitea-sim/index.js";
import { type LocalStack, startLocalStack } from "../../../tools/local-stack/start-local-stack.js";
import { type AppHarness, startApp, testCredentials } from "../../support/app-harness.js";
import { uniqueKeyPrefix } from "../../support/redis.js";
import { shortConfig } from "./e2e-world.js";

export const giteaRepo = "octo/widgets";
export const giteaBot = { login: "claim-hold-bot", token: "gitea-e2e-bot-token-000000000000000001" };
/** One Gitea account shared by every agent session. */
export const giteaFleet = { login: "fleet-bot", token: "gitea-e2e-fleet-token-00000000000000001" };
export const giteaMaintainer = { login: "alice", token: "gitea-e2e-alice-token-00000000000000001" };
const webhookSecret = "gitea-e2e-webhook-secret-0123456789";

export interface GiteaE2eWorld {
  stack: LocalStack<AppHarness>;
  sim: GiteaSimulator;
  repo: SimRepo;
  readonly app: AppHarness;
  stores: Stores;
  /** The store's key of an issue of octo/widgets. */
  key(issue: number): SubjectKey;
  /** An agent session's client on the Gitea forge: the fleet account's Gitea token. */
  agent(token?: string): ClaimHoldClient;
  /** The issue's label names. */
  labelsOf(issue: number): string[];
  close(): Promise<void>;
}

/**
 * Starts the Gitea simulator and the App serving it (GitHub's simulator idles beside it), seeds
 * octo/widgets with the short config and `issues`, and points the repository hook at the App.
 */
export async function startGiteaWorld(
  options: { issues?: { number: number; title: string }[]; writeFenceWaitMs?: number } = {},
): Promise<GiteaE2eWorld> {
  let clock: { now: number } | undefined;
  const sim = await startGiteaSimulator({ now: () => clock?.now ?? Date.now() });
  sim.state.addUser(giteaBot.login, giteaBot.token);
  sim.state.addUser(giteaFleet.login, giteaFleet.token);
  sim.state.addUser(giteaMaintainer.login, giteaMaintainer.token);
  sim.state.addUser("octo");
  const repo = sim.state.addRepo(giteaRepo, {
    [giteaBot.login]: "admin",
    [giteaFleet.login]: "write",
    [giteaMaintainer.login]: "admin",
  });
  repo.files.set(".gitea/claim-hold.yml", shortConfig);
  for (const issue of options.issues ?? [1, 2, 3, 4, 5].map((n) => ({ number: n, title: `Task ${n}` })))
    sim.state.addIssue(repo, { title: issue.title, author: giteaMaintainer.login });
  const stack = await startLocalStack({
    redis: { kind: "shared", keyPrefix: uniqueKeyPrefix("e2e-gitea") },
    credentials: testCredentials(1),
    startApp: (wiring) =>
      startApp({
        stores: wiring.stores,
        fences: wiring.fences,
        githubBaseUrl: wiring.githubBaseUrl,
        appId: 1,
        now: Date.now(),
        ...(options.writeFenceWaitMs !== undefined ? { writeFenceWaitMs: options.writeFenceWaitMs } : {}),
        gitea: {
          url: sim.url,
          token: giteaBot.token,
          webhookSecret,
          manageWebhooks: false,
          installationId: 1,
          writeSpacingMs: 0,
        },
      }),
  });
  clock = stack.app.clock;
  sim.hook(`${stack.app.url}/api/gitea/webhooks`, webhookSecret);
  const installationId = giteaInstallationRecordId(1);
  const world: GiteaE2eWorld = {
    stack,
    sim,
    repo,
    get app() {
      return stack.app;
    },
    stores: stack.stores,
    key: (issue) => ({ installationId, repoId: repo.id, issue }),
    agent(token = giteaFleet.token) {
      return createClaimHoldClient({
        baseUrl: world.app.url,
        githubToken: token,
        forge: "gitea",
        retries: 0,
        sleep: async (ms) => {
          world.app.clock.now += ms;
        },
      });
    },
    labelsOf(number) {
      const issue = repo.issues.find((i) => i.number === number);
      return (issue?.labelIds ?? []).flatMap((id) =>
        repo.labels.filter((l) => l.id === id).map((l) => l.name),
      );
    },
    async close() {
      await stack.stop();
      await sim.close();
    },
  };
  return world;
}
