// What a login may do in a Gitea repository (the collaborator permission route), cached with an injected clock: the standing of a claim's caller and of a pull request's author.
import type { RepoPermission } from "../assignment-provider.js";
import { splitRepo } from "../github/split-repo.js";
import { TtlCache } from "../github/ttl-cache.js";
import type { GiteaClient } from "./gitea-client.js";
import { giteaStatusOf, type RequestCounter } from "./gitea-routes.js";

const minute = 60_000;
/** How long the instance's answers are trusted; a revoked token or permission takes effect within this. */
export const positiveTtlMs = 5 * minute;
/** Short, so a newly created token or collaborator works soon after. */
export const negativeTtlMs = 30_000;

/** A permission as read, or `unknown` when Gitea did not answer it (an error other than 404). */
export type AuthorPermission = RepoPermission | "unknown";

/**
 * Gitea's `permission` (and `role_name`) for a collaborator: `owner`, `admin`, `write`, `read`
 * or `none`. Gitea has no maintain or triage role; anything unknown is no permission.
 */
export function giteaPermissionOf(response: {
  permission: string;
  role_name?: string | undefined;
}): RepoPermission {
  const byName: Record<string, RepoPermission> = {
    owner: "admin",
    admin: "admin",
    write: "write",
    read: "read",
  };
  return byName[response.permission] ?? "none";
}

export class GiteaCollaboratorPermissions {
  readonly #cache: TtlCache<RepoPermission>;

  constructor(
    private readonly client: GiteaClient,
    now: () => number = Date.now,
  ) {
    this.#cache = new TtlCache(now);
  }

  /**
   * The collaborator permission route, cached by repository and login (5 minutes; 30 s for none);
   * a login Gitea does not know (404) has none. Gitea answers 403 unless the bot account
   * administers the repository: that is thrown, not read as `none`.
   */
  permission(repo: string, login: string, counter?: RequestCounter): Promise<RepoPermission> {
    const { owner, name } = splitRepo(repo);
    return this.#cache.getOrLoad(
      `${repo.toLowerCase()}:${login.toLowerCase()}`,
      async () => {
        try {
          return giteaPermissionOf(await this.client.getPermission(owner, name, login, counter));
        } catch (error) {
          if (giteaStatusOf(error) === 404) return "none";
          throw error;
        }
      },
      (permission) => (permission === "none" ? negativeTtlMs : positiveTtlMs),
    );
  }

  /**
   * Lower-cased login → permission of each of `logins`, one (cached) read each; a read Gitea does
   * not answer is `unknown` (an outage proves nothing of the author).
   */
  async ofLogins(
    repo: string,
    logins: readonly string[],
    counter?: RequestCounter,
  ): Promise<Map<string, AuthorPermission>> {
    const distinct = [...new Set(logins.map((login) => login.toLowerCase()))];
    const read = await Promise.all(
      distinct.map((login) => this.permission(repo, login, counter).catch((): AuthorPermission => "unknown")),
    );
    return new Map(distinct.map((login, i) => [login, read[i] ?? "unknown"]));
  }
}
