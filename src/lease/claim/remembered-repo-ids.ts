// A repository's id for its name, as a claim's read of the forge answered it: stable, so remembered per process (bounded).

/** Repository ids remembered per process before the memory starts again. */
const maxRememberedRepos = 10_000;

export class RememberedRepoIds {
  readonly #ids = new Map<string, number>();

  get(installationId: number, repo: string): number | undefined {
    return this.#ids.get(keyOf(installationId, repo));
  }

  remember(installationId: number, repo: string, repoId: number): void {
    if (this.#ids.size >= maxRememberedRepos) this.#ids.clear();
    this.#ids.set(keyOf(installationId, repo), repoId);
  }
}

/** `installation:owner/name`, the name in lower case (names are case-insensitive on both forges). */
function keyOf(installationId: number, repo: string): string {
  return `${installationId}:${repo.toLowerCase()}`;
}
