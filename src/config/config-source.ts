// Where the core reads a repository's validated config; wiring/repo-config-source.ts implements it over GitHub.
import type { RepoConfig } from "./repo-config.js";

/** Where the lease core reads a repository's validated config (cached by the implementation). */
export interface RepoConfigSource {
  load(installationId: number, repo: string): Promise<RepoConfig>;
  /** The cached config if there is one; never calls GitHub (the heartbeat path must not). */
  peek(installationId: number, repo: string): RepoConfig | undefined;
}
