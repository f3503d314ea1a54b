// Loads and validates `.github/claim-hold.yml` per repository; invalid files fall back to defaults and are logged.
import type { Logger } from "pino";
import type { RepoConfigSource } from "../config/config-source.js";
import { defaultRepoConfig, parseRepoConfig, type RepoConfig } from "../config/repo-config.js";
import { ConfigFileError, type IdentityProvider } from "../providers/assignment-provider.js";

export interface RepoConfigCache extends RepoConfigSource {
  /** The last validation error per repository (surfaced as a neutral check annotation). */
  errorFor(installationId: number, repo: string): string | undefined;
  forget(installationId: number, repo: string): void;
}

export function createRepoConfigSource(identity: IdentityProvider, log: Logger): RepoConfigCache {
  const loaded = new Map<string, { config: RepoConfig; error?: string }>();
  const keyOf = (installationId: number, repo: string) => `${installationId}:${repo.toLowerCase()}`;
  return {
    async load(installationId, repo) {
      let result: { config: RepoConfig; error?: string };
      try {
        result = parseRepoConfig(await identity.repoConfig(installationId, repo));
      } catch (error) {
        if (!(error instanceof ConfigFileError)) throw error;
        result = { config: defaultRepoConfig, error: error.message };
      }
      if (result.error)
        log.warn({ repo, configError: result.error }, "invalid .github/claim-hold.yml; using defaults");
      loaded.set(keyOf(installationId, repo), result);
      return result.config;
    },
    peek(installationId, repo) {
      return loaded.get(keyOf(installationId, repo))?.config;
    },
    errorFor(installationId, repo) {
      return loaded.get(keyOf(installationId, repo))?.error;
    },
    forget(installationId, repo) {
      loaded.delete(keyOf(installationId, repo));
    },
  };
}
