// The janitor's list of the App's installations with the Gitea instance's record in it, so a store loss is repaired on Gitea as on GitHub.
import type { InstallationSource } from "../providers/installation-source.js";

/**
 * GitHub's installations and each served Gitea instance's installation record (always installed: the
 * bot account is configured, there is no list to read). The janitor reads this list when the store
 * lost its own installation set; without the Gitea record in it, a lost store would forget the Gitea
 * claims until the next Gitea claim named the record again. `github` absent (a Gitea-only App): the
 * record alone, and GitHub is never asked.
 */
export function withGiteaRecord(
  github: InstallationSource | undefined,
  giteaRecords: number | readonly number[],
): InstallationSource {
  const records = typeof giteaRecords === "number" ? [giteaRecords] : giteaRecords;
  return {
    listInstallations: async () =>
      [...new Set([...((await github?.listInstallations()) ?? []), ...records])].sort((a, b) => a - b),
  };
}
