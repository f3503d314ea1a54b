// Who is calling on a Gitea (or Forgejo) instance and what they may do there: the instance's answers, cached with an injected clock.
import { createHash } from "node:crypto";
import { LineCounter, parseDocument } from "yaml";
import {
  ConfigFileError,
  type GitHubUser,
  type IdentityProvider,
  type RepoPermission,
} from "../assignment-provider.js";
import { splitRepo } from "../github/split-repo.js";
import { TtlCache } from "../github/ttl-cache.js";
import type { GiteaClient } from "./gitea-client.js";
import {
  GiteaCollaboratorPermissions,
  negativeTtlMs,
  positiveTtlMs,
} from "./gitea-collaborator-permissions.js";
import { giteaStatusOf } from "./gitea-routes.js";

/** Read in this order: a Gitea-specific file wins over the one a mirrored GitHub repository carries. */
export const giteaConfigPaths = [".gitea/claim-hold.yml", ".github/claim-hold.yml"] as const;

// The cache lifetimes and Gitea's permission names are the collaborator permissions' own.
export { giteaPermissionOf, negativeTtlMs, positiveTtlMs } from "./gitea-collaborator-permissions.js";

export interface GiteaIdentityProviderOptions {
  /** The client acting as the App's bot account (`GITEA_URL`, `GITEA_TOKEN`). */
  client: GiteaClient;
  /**
   * The installation record this instance is served under: Gitea has no App installations, so
   * every repository the bot account can see belongs to it.
   */
  installationId: number;
  now?: () => number;
  /** Shared with the assignment provider's pull request standings (one cache of the instance's answers). */
  permissions?: GiteaCollaboratorPermissions;
}

type ConfigEntry =
  | { kind: "found"; value: unknown; path: string }
  | { kind: "none" }
  | { kind: "invalid"; error: ConfigFileError };

export class GiteaIdentityProvider implements IdentityProvider {
  readonly #now: () => number;
  readonly #users: TtlCache<GitHubUser | null>;
  readonly #repositories: TtlCache<number | null>;
  readonly #permissions: GiteaCollaboratorPermissions;
  readonly #configs: TtlCache<ConfigEntry>;

  constructor(private readonly options: GiteaIdentityProviderOptions) {
    this.#now = options.now ?? Date.now;
    this.#users = new TtlCache(this.#now);
    this.#repositories = new TtlCache(this.#now);
    this.#permissions = options.permissions ?? new GiteaCollaboratorPermissions(options.client, this.#now);
    this.#configs = new TtlCache(this.#now);
  }

  /**
   * `GET /api/v1/user` with the agent's token; cached by the token's SHA-256. Gitea has no node
   * ids: `nodeId` is the login, which is what Gitea's assignee writes take back.
   */
  userForToken(token: string): Promise<GitHubUser | null> {
    if (!/^[\x21-\x7e]{1,1024}$/.test(token)) return Promise.resolve(null);
    const key = createHash("sha256").update(token).digest("hex");
    return this.#users.getOrLoad(
      key,
      async () => {
        try {
          const user = await this.options.client.getUser(token);
          return { login: user.login, id: user.id, nodeId: user.login };
        } catch (error) {
          if (giteaStatusOf(error) === 401) return null;
          throw error;
        }
      },
      (user) => (user ? positiveTtlMs : negativeTtlMs),
    );
  }

  /** The configured installation when the bot account can see `owner/name`; null on 404. */
  installationFor(repo: string): Promise<number | null> {
    const { owner, name } = splitRepo(repo);
    return this.#repositories.getOrLoad(
      repo.toLowerCase(),
      async () => {
        try {
          await this.options.client.getRepository(owner, name);
          return this.options.installationId;
        } catch (error) {
          if (giteaStatusOf(error) === 404) return null;
          throw error;
        }
      },
      (id) => (id === null ? negativeTtlMs : positiveTtlMs),
    );
  }

  /** The collaborator permission route (`GiteaCollaboratorPermissions`): one cache per repository and login. */
  permission(_installationId: number, repo: string, login: string): Promise<RepoPermission> {
    return this.#permissions.permission(repo, login);
  }

  /**
   * The parsed YAML of `.gitea/claim-hold.yml`, else `.github/claim-hold.yml`, else null. An empty
   * file reads as `{}`. No organisation-wide default yet.
   * @throws ConfigFileError when the file is not valid YAML (cached like a valid file).
   */
  async repoConfig(installationId: number, repo: string): Promise<unknown> {
    return (await this.repoConfigFile(installationId, repo))?.value ?? null;
  }

  /** `repoConfig` with the path of the file it read; null when neither exists. */
  async repoConfigFile(
    installationId: number,
    repo: string,
  ): Promise<{ value: unknown; path: string } | null> {
    const { owner, name } = splitRepo(repo);
    const entry = await this.#configs.getOrLoad(
      `${installationId}:${repo.toLowerCase()}`,
      async () => {
        for (const path of giteaConfigPaths) {
          const read = await this.#readConfigFile(owner, name, path);
          if (read.kind !== "none") return read;
        }
        return { kind: "none" } as const;
      },
      () => positiveTtlMs,
    );
    if (entry.kind === "invalid") throw entry.error;
    return entry.kind === "found" ? { value: entry.value, path: entry.path } : null;
  }

  async #readConfigFile(owner: string, repo: string, path: string): Promise<ConfigEntry> {
    let text: string;
    try {
      text = await this.options.client.getRawFile(owner, repo, path);
    } catch (error) {
      if (giteaStatusOf(error) === 404) return { kind: "none" };
      throw error;
    }
    const lineCounter = new LineCounter();
    const document = parseDocument(text, { prettyErrors: false, lineCounter });
    const problem = document.errors[0];
    if (problem) {
      const line = lineCounter.linePos(problem.pos[0]).line;
      return { kind: "invalid", error: new ConfigFileError(`${owner}/${repo}`, line, problem.message, path) };
    }
    return { kind: "found", value: document.toJS({ maxAliasCount: 100 }) ?? {}, path };
  }
}
