// Whether a Gitea account is a person (docs/reference/gitea-surfaces.md#what-a-delivery-is-trusted-for): one rule for deliveries, comment reads and the timeline.

/** A Gitea account as a payload or a read names it: its id and login. */
export interface GiteaUserRef {
  id: number;
  login: string;
}

/**
 * A person, as GitHub's `User` accounts are: not the App's own bot account, and not one of Gitea's
 * (or Forgejo's) built-in users, whose ids are not positive (a deleted account's ghost is -1, the
 * Actions user `gitea-actions` / `forgejo-actions` is -2). No user named (null) is no person either.
 * What is no person is handled as GitHub's `[bot]` accounts are.
 */
export function giteaUserIsPerson(user: GiteaUserRef | null | undefined, botLogin: string): boolean {
  return user != null && user.id > 0 && user.login.toLowerCase() !== botLogin.toLowerCase();
}

/** The login a deleted account's acts are shown under when Gitea names no user. */
export const giteaGhostLogin = "ghost";
