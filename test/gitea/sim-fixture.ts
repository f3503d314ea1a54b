// One simulated Gitea for a test: the App's bot account, an agent, a maintainer and a reader on octo/widgets.
import type { GiteaConfig } from "../../src/config/gitea-config.js";
import { giteaInstallationRecordId } from "../../src/domain/forge.js";
import { createMarkerSeal } from "../../src/domain/marker-seal.js";
import { GiteaClient } from "../../src/providers/gitea/gitea-client.js";
import { type GiteaSimulator, type SimRepo, startGiteaSimulator } from "../../tools/gitea-sim/index.js";

export const botLogin = "claim-hold-bot";
export const botToken = "gitea-sim-bot-token-0000000000000001";
export const agentToken = "gitea-sim-agent-token-000000000000001";
export const maintainerToken = "gitea-sim-maintainer-token-00000001";
export const readerToken = "gitea-sim-reader-token-0000000000001";
/** The store's installation record of the instance an App serves with `installationId: 1` (`GITEA_INSTALLATION_ID=1`). */
export const giteaInstallation = giteaInstallationRecordId(1);

export interface GiteaSimFixture {
  sim: GiteaSimulator;
  repo: SimRepo;
  /** A client acting as the App's bot account, counting its requests by kind. */
  client: GiteaClient;
  kinds: string[];
}

export async function startGiteaSimFixture(clock: { now: number }): Promise<GiteaSimFixture> {
  const sim = await startGiteaSimulator({ now: () => clock.now });
  sim.state.addUser(botLogin, botToken);
  sim.state.addUser("fleet-bot", agentToken);
  sim.state.addUser("maintainer", maintainerToken);
  sim.state.addUser("reader", readerToken);
  sim.state.addUser("octo");
  const repo = sim.state.addRepo("octo/widgets", {
    [botLogin]: "admin",
    "fleet-bot": "write",
    maintainer: "admin",
    reader: "read",
  });
  const kinds: string[] = [];
  const client = new GiteaClient({
    baseUrl: sim.url,
    token: botToken,
    onRequest: (kind) => kinds.push(kind),
  });
  return { sim, repo, client, kinds };
}

export const giteaTestSeal = (secret: string) => createMarkerSeal(secret);

/**
 * The App's `gitea` option for a simulated instance whose hooks are made by hand: every delivery is
 * signed with the one `webhookSecret`, and writes go out unspaced (`installationId`: its number).
 */
export function handMadeHooksGitea(
  sim: Pick<GiteaSimulator, "url">,
  webhookSecret = "gitea-webhook-secret-for-tests",
  installationId = 1,
): GiteaConfig {
  return {
    url: sim.url,
    token: botToken,
    webhookSecret,
    manageWebhooks: false,
    installationId,
    writeSpacingMs: 0,
  };
}
