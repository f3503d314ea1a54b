// A lease holder's `write` permission is re-checked at most every 10 minutes: a removed collaborator loses the lease (docs/reference/http-api.md#authentication).
import type { RepoPermission } from "../../providers/assignment-provider.js";

export const permissionRecheckMs = 10 * 60_000;

const rank: Record<RepoPermission, number> = { none: 0, read: 1, triage: 2, write: 3, maintain: 4, admin: 5 };

export function allowsClaims(permission: RepoPermission): boolean {
  return rank[permission] >= rank.write;
}

export interface HolderPermissionsOptions {
  /** GitHub's answer (cached by the identity provider). */
  permission: (installationId: number, repo: string, login: string) => Promise<RepoPermission>;
  now: () => number;
  everyMs?: number;
}

/** When each holder's permission was last confirmed, per process; a claim counts as a confirmation. */
export class HolderPermissions {
  readonly #checkedAt = new Map<string, number>();

  constructor(private readonly options: HolderPermissionsOptions) {}

  confirmed(installationId: number, repo: string, login: string): void {
    if (this.#checkedAt.size > 50_000) this.#checkedAt.clear();
    this.#checkedAt.set(keyOf(installationId, repo, login), this.options.now());
  }

  /** True while the login's last confirmation is recent enough that `stillAllowed` asks nobody (no I/O). */
  recentlyConfirmed(installationId: number, repo: string, login: string): boolean {
    const at = this.#checkedAt.get(keyOf(installationId, repo, login));
    return at !== undefined && this.options.now() - at < (this.options.everyMs ?? permissionRecheckMs);
  }

  /**
   * True unless a due re-check finds the login without `write`. A check GitHub cannot answer keeps
   * the lease (an outage is no evidence) and is tried again at the next call.
   */
  async stillAllowed(installationId: number, repo: string, login: string): Promise<boolean> {
    const key = keyOf(installationId, repo, login);
    const at = this.#checkedAt.get(key);
    const now = this.options.now();
    if (at !== undefined && now - at < (this.options.everyMs ?? permissionRecheckMs)) return true;
    let permission: RepoPermission;
    try {
      permission = await this.options.permission(installationId, repo, login);
    } catch {
      return true;
    }
    if (!allowsClaims(permission)) return false;
    this.#checkedAt.set(key, now);
    return true;
  }
}

function keyOf(installationId: number, repo: string, login: string): string {
  return `${installationId}:${repo.toLowerCase()}:${login.toLowerCase()}`;
}
