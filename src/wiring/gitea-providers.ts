// A Gitea (or Forgejo) instance's side of the App: its bot-account client, its writes serialised, and the providers built on it.
import type { Logger } from "pino";
import type { GiteaConfig } from "../config/gitea-config.js";
import { giteaInstallationRecordId, giteaInstanceName } from "../domain/forge.js";
import { createMarkerSeal } from "../domain/marker-seal.js";
import { GiteaAssignmentProvider } from "../providers/gitea/gitea-assignment-provider.js";
import { giteaBotAccount } from "../providers/gitea/gitea-bot-account.js";
import { GiteaCandidateSource } from "../providers/gitea/gitea-candidate-source.js";
import { GiteaChecksProvider } from "../providers/gitea/gitea-checks-provider.js";
import { GiteaClient } from "../providers/gitea/gitea-client.js";
import { GiteaCollaboratorPermissions } from "../providers/gitea/gitea-collaborator-permissions.js";
import { GiteaCommentReactions } from "../providers/gitea/gitea-comment-reactions.js";
import { GiteaIdentityProvider } from "../providers/gitea/gitea-identity-provider.js";
import { serialWriteLimiter } from "../providers/gitea/serial-write-limiter.js";
import type { ClaimHoldOptions } from "./claim-hold-options.js";

export type GiteaProviders = ReturnType<typeof createGiteaProviders>;

export function createGiteaProviders(
  config: GiteaConfig,
  options: Pick<ClaimHoldOptions, "tokenSecret" | "previousTokenSecret">,
  deps: { now: () => number; log: Logger },
) {
  // The same seal as the GitHub side: one secret signs every marker the App writes.
  const seal = createMarkerSeal(options.tokenSecret, options.previousTokenSecret);
  const client = new GiteaClient({
    baseUrl: config.url,
    token: config.token,
    writeLimiter: serialWriteLimiter({ spacingMs: config.writeSpacingMs }),
  });
  const bot = giteaBotAccount(client);
  const installationId = giteaInstallationRecordId(config.installationId);
  // One cache of collaborator permissions per instance: a caller's standing, a PR author's, the queue's.
  const permissions = new GiteaCollaboratorPermissions(client, deps.now);
  return {
    client,
    bot,
    /** The installation record of the instance's repositories: in Gitea's id space, never a GitHub installation's. */
    installationId,
    /** How agents name the instance (`X-Claim-Hold-Forge: gitea:<name>`) and the dashboard shows it. */
    name: giteaInstanceName(config.url),
    /** The instance's collaborator permissions, cached once for every provider below and the queue refresh. */
    permissions,
    identity: new GiteaIdentityProvider({ client, installationId, now: deps.now, permissions }),
    assignments: new GiteaAssignmentProvider({
      client,
      permissions,
      seal,
      bot,
      now: deps.now,
      onMarkerRejected: (reason) =>
        deps.log.warn(
          { reason, forge: "gitea", installationId },
          "ignored a claim marker that is not the App's own",
        ),
    }),
    reactions: new GiteaCommentReactions(client),
    /** The candidate index's reads: dependencies, closing pull requests, a repository's id. */
    candidates: new GiteaCandidateSource(client, permissions, deps.log.child({ forge: "gitea" })),
    /** The fence's `claim-hold` commit status. */
    checks: new GiteaChecksProvider({ client, bot, webUrl: config.url }),
  };
}
