// Installation account logins for the dashboard: each read once from GitHub (`GET /app/installations/{id}`) and kept, so a refresh costs no request; a Gitea record is named after its instance, unread.
import { forgeOfInstallation, giteaInstallationRecordId, giteaInstanceName } from "../domain/forge.js";

/** A login is kept this long (accounts are rarely renamed). */
export const accountNameTtlMs = 24 * 3_600_000;
/** After a failed read the dashboard shows the id and asks again only after this. */
export const accountNameRetryMs = 60_000;
/** A page waits this long for a first read; a slower one lands for the next refresh. */
export const accountNameWaitMs = 2_000;

export interface AccountNamesDeps {
  lookup: (installationId: number) => Promise<string | null>;
  /**
   * A name known without a read (a Gitea record: its instance's name; `""`: none); null: ask
   * `lookup`. Such a record is never looked up, so GitHub is not asked about an installation it
   * does not have.
   */
  known?: (installationId: number) => string | null;
  now: () => number;
  /** A failed read (the page shows the installation's id instead). */
  onError?: (installationId: number, error: unknown) => void;
}

export type AccountNames = (installationIds: readonly number[]) => Promise<Map<number, string>>;

export function createAccountNames(deps: AccountNamesDeps): AccountNames {
  const known = new Map<number, { login: string | null; until: number }>();
  const inFlight = new Map<number, Promise<void>>();
  const refresh = (installationId: number): Promise<void> => {
    const running = inFlight.get(installationId);
    if (running) return running;
    const read = deps
      .lookup(installationId)
      .then(
        (login) => known.set(installationId, { login, until: deps.now() + accountNameTtlMs }),
        (error: unknown) => {
          deps.onError?.(installationId, error);
          known.set(installationId, { login: null, until: deps.now() + accountNameRetryMs });
        },
      )
      .then(() => undefined)
      .finally(() => inFlight.delete(installationId));
    inFlight.set(installationId, read);
    return read;
  };
  const fixed = deps.known ?? (() => null);
  return async (installationIds) => {
    const now = deps.now();
    const reads = [...new Set(installationIds)]
      .filter((id) => fixed(id) === null && (known.get(id)?.until ?? 0) <= now)
      .map((id) => refresh(id));
    if (reads.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, accountNameWaitMs);
        timer.unref();
      });
      await Promise.race([Promise.all(reads), waited]);
      clearTimeout(timer);
    }
    const names = new Map<number, string>();
    for (const id of installationIds) {
      const login = fixed(id) ?? known.get(id)?.login;
      if (login) names.set(id, login);
    }
    return names;
  };
}

/**
 * The names known without a read: each served Gitea record's is its instance's (`GITEA_URL`,
 * `GITEA_URL_<N>`). Any other Gitea record has none (no served instance's) and is never looked up on
 * GitHub either.
 */
export function knownAccountNames(
  gitea:
    | { url: string; installationId: number }
    | readonly { url: string; installationId: number }[]
    | undefined,
): (installationId: number) => string | null {
  const instances = gitea === undefined ? [] : "url" in gitea ? [gitea] : gitea;
  const names = new Map(
    instances.map((instance) => [
      giteaInstallationRecordId(instance.installationId),
      giteaInstanceName(instance.url),
    ]),
  );
  return (installationId) => {
    if (forgeOfInstallation(installationId).forge !== "gitea") return null;
    return names.get(installationId) ?? "";
  };
}

/** How the dashboard names a Gitea or Forgejo instance's record (domain/forge.ts). */
export { giteaInstanceName };
