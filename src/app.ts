// Wires claim-hold into a Probot app: providers, lease core, HTTP API and webhook handlers.

import type { Logger } from "pino";
import type { ApplicationFunction, Probot } from "probot";
import { createRepoConfigSource } from "./config/repo-config-source.js";
import { apiHandler, createApi } from "./handlers/api.js";
import { createFailedAuthLimiter } from "./handlers/failed-auth-limiter.js";
import { prepareRepositories } from "./handlers/installation.js";
import { LeaseCore } from "./lease/lease-core.js";
import { deriveSubjectState } from "./lease/subject-state.js";
import { createTokenMinter } from "./lease/tokens.js";
import { GitHubAssignmentProvider } from "./providers/github/github-assignment-provider.js";
import { GitHubIdentityProvider } from "./providers/github/github-identity-provider.js";
import type { LivenessStore } from "./providers/liveness-store.js";

export interface ClaimHoldOptions {
  store: LivenessStore;
  tokenSecret: string;
  /** REST base URL of GitHub (or GHE / the simulator), for calls made with the agent's own token. */
  githubBaseUrl: string;
  log: Logger;
  now?: () => number;
  adminToken?: string;
  /** Whether real App credentials are loaded (readiness). */
  credentialsLoaded?: boolean;
}

const apiPaths = /^\/(api\/v1\/|healthz$|readyz$)/;

export function createClaimHoldApp(options: ClaimHoldOptions): ApplicationFunction {
  return (app: Probot, { addHandler }) => {
    const now = options.now ?? Date.now;
    const { store, log } = options;
    const octokitFor = (installationId: number) => app.auth(installationId);
    const identity = new GitHubIdentityProvider({
      baseUrl: options.githubBaseUrl,
      appOctokit: () => app.auth(),
      octokitFor,
      now,
    });
    const assignments = new GitHubAssignmentProvider({ octokitFor });
    const configs = createRepoConfigSource(identity, log);
    const core = new LeaseCore({
      store,
      assignments,
      configs,
      tokens: createTokenMinter(options.tokenSecret),
      now,
      log,
      deriveState: deriveSubjectState(configs),
    });
    const api = createApi({
      core,
      identity,
      limiter: createFailedAuthLimiter({ now }),
      log,
      ready: async () => {
        const checks: Record<string, string> = {};
        try {
          await store.ping();
          checks.store = "ok";
        } catch {
          checks.store = "unreachable";
        }
        checks.credentials = options.credentialsLoaded === false ? "missing" : "ok";
        return { ok: Object.values(checks).every((v) => v === "ok"), checks };
      },
    });
    addHandler(apiHandler(api, (path) => apiPaths.test(path)));

    app.on(["installation.created", "installation_repositories.added"], async (context) => {
      const payload = context.payload;
      const repositories =
        "repositories_added" in payload ? payload.repositories_added : (payload.repositories ?? []);
      await prepareRepositories(
        { installationId: payload.installation.id, repositories },
        { assignments, configs, log: context.log },
      );
    });
  };
}
