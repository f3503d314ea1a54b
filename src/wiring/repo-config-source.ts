// Loads and validates the repository's config file (`.github/claim-hold.yml`; on Gitea `.gitea/` first) per repository; invalid files fall back to defaults and are logged with their path.
import type { Logger } from "pino";
import type { RepoConfigSource } from "../config/config-source.js";
import { defaultRepoConfig, parseRepoConfig, type RepoConfig } from "../config/repo-config.js";
import {
  ConfigFileError,
  githubConfigPath,
  type IdentityProvider,
} from "../providers/assignment-provider.js";

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
      let path = githubConfigPath;
      try {
        const file = identity.repoConfigFile
          ? await identity.repoConfigFile(installationId, repo)
          : { value: await identity.repoConfig(installationId, repo), path };
        path = file?.path ?? path;
        result = parseRepoConfig(file?.value ?? null, path);
      } catch (error) {
        if (!(error instanceof ConfigFileError)) throw error;
        path = error.path;
        result = { config: defaultRepoConfig, error: error.message };
      }
      if (result.error) log.warn({ repo, configError: result.error }, `invalid ${path}; using defaults`);
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
