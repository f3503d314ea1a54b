// The name a Gitea repository id has now: a claim's record keeps the name it was claimed under, which a rename may since have given to another repository.
import type { GiteaClient } from "./gitea-client.js";
import { giteaStatusOf, type RequestCounter } from "./gitea-routes.js";

/** How long a name read for an id is trusted by writes that read nothing of the issue first. */
export const rememberedRepositoryNameMs = 10 * 60_000;
/** Ids remembered at most; past it the memory starts over (a read each, never a wrong answer). */
const maxRemembered = 10_000;

/**
 * Gitea redirects a renamed repository's old name until another repository takes it; from then on
 * the old name is that repository's. A write addressed by a record's name is checked against its
 * id: by the issue read the write makes anyway (`GiteaIssue.repository.id`), else by this memory
 * (docs/reference/gitea-surfaces.md#renamed-repositories).
 */
export class GiteaRepositoryNames {
  readonly #names = new Map<number, { name: string; readAt: number }>();

  constructor(
    private readonly client: Pick<GiteaClient, "getRepositoryById">,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The id's name, read at most `rememberedRepositoryNameMs` ago; null when the bot cannot see it. */
  async current(repoId: number, counter: RequestCounter): Promise<string | null> {
    const remembered = this.#names.get(repoId);
    if (remembered && this.clock() - remembered.readAt < rememberedRepositoryNameMs) return remembered.name;
    return this.fresh(repoId, counter);
  }

  /** The id's name read now (a read by the remembered name answered another repository). */
  async fresh(repoId: number, counter: RequestCounter): Promise<string | null> {
    let name: string;
    try {
      name = (await this.client.getRepositoryById(repoId, counter)).full_name;
    } catch (error) {
      if (giteaStatusOf(error) !== 404) throw error;
      this.#names.delete(repoId);
      return null;
    }
    this.saw(repoId, name);
    return name;
  }

  /** What a read by name showed the id's name to be: no read needed for it for a while. */
  saw(repoId: number, name: string): void {
    if (this.#names.size >= maxRemembered) this.#names.clear();
    this.#names.set(repoId, { name, readAt: this.clock() });
  }
}
