// Whether a signed Gitea delivery's repository name is the name of the repository id its signature is for.
/** Names remembered at most; past it the memory starts over (a read each, never a wrong answer). */
const maxRemembered = 10_000;

/**
 * A hook's secret is its repository's (`hookSecretOf`), so a signature vouches for `repository.id`
 * only: the admin of one repository could sign a body that names her repository's id with another
 * repository's `full_name`, and the handlers read and write by name. The name is checked against
 * the one Gitea gives for the id (`GET /repositories/{id}`), remembered per process: a repository
 * costs one read until it is renamed (a name that differs is read again before it is refused).
 */
export class DeliveryRepositoryCheck {
  readonly #names = new Map<number, string>();

  constructor(private readonly nameOf: (repoId: number) => Promise<string | null>) {}

  async named(repoId: number, fullName: string): Promise<boolean> {
    const same = (name: string | null | undefined) => name?.toLowerCase() === fullName.toLowerCase();
    if (same(this.#names.get(repoId))) return true;
    const now = await this.nameOf(repoId);
    if (now === null) {
      this.#names.delete(repoId);
      return false;
    }
    if (this.#names.size >= maxRemembered) this.#names.clear();
    this.#names.set(repoId, now);
    return same(now);
  }
}
