// Whether a signed Gitea delivery's repository name is the name of the repository id its signature is for.
/** Names remembered at most; past it the memory starts over (a read each, never a wrong answer). */
const maxRemembered = 10_000;
/**
 * How long a remembered name is trusted: a repository renamed and its old name taken by another
 * repository is seen again within it, not only when a delivery names something else.
 */
export const rememberedNameMs = 10 * 60_000;

/**
 * A hook's secret is its repository's (`hookSecretOf`), so a signature vouches for `repository.id`
 * only: the admin of one repository could sign a body that names her repository's id with another
 * repository's `full_name`, and the handlers read and write by name. The name is checked against
 * the one Gitea gives for the id (`GET /repositories/{id}`), remembered per process for
 * `rememberedNameMs`: a repository costs one read per period (a name that differs is read again
 * before it is refused).
 */
export class DeliveryRepositoryCheck {
  readonly #names = new Map<number, { name: string; readAt: number }>();

  constructor(
    private readonly nameOf: (repoId: number) => Promise<string | null>,
    private readonly clock: () => number = Date.now,
  ) {}

  async named(repoId: number, fullName: string): Promise<boolean> {
    const same = (name: string | null | undefined) => name?.toLowerCase() === fullName.toLowerCase();
    const remembered = this.#names.get(repoId);
    if (remembered && this.clock() - remembered.readAt < rememberedNameMs && same(remembered.name))
      return true;
    const name = await this.nameOf(repoId);
    if (name === null) {
      this.#names.delete(repoId);
      return false;
    }
    if (this.#names.size >= maxRemembered) this.#names.clear();
    this.#names.set(repoId, { name, readAt: this.clock() });
    return same(name);
  }
}
