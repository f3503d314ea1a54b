// Which PRs of other repositories close a subject, so the subject's transitions and attestations re-run their checks.
import type { ForeignIssue, SubjectKey } from "../domain/claim.js";
import { subjectName } from "../domain/claim.js";
import type { DocumentStore } from "../providers/app-stores.js";

/** A PR of another repository that closes a subject. */
export interface CrossLink {
  repo: string;
  repoId: number;
  number: number;
}

const crossLinkMemoryMs = 30 * 24 * 3_600_000;
/** PRs remembered per subject; the oldest go first. */
const maxCrossLinks = 20;

/** The cross links of each subject, a store document each; updates of one subject run one after another here. */
export class CrossLinks {
  readonly #writing = new Map<string, Promise<unknown>>();

  constructor(private readonly store: DocumentStore) {}

  /** The PRs of other repositories remembered as closing `key`. */
  async of(key: SubjectKey): Promise<CrossLink[]> {
    const value = await this.store.getDocument(documentOf(key));
    return Array.isArray(value) ? (value as CrossLink[]) : [];
  }

  /** Remembers that `pull` closes these subjects of other repositories (safe to repeat). */
  async remember(installationId: number, pull: CrossLink, subjects: readonly ForeignIssue[]): Promise<void> {
    for (const subject of subjects) {
      const key = { installationId, repoId: subject.repoId, issue: subject.issue };
      const name = documentOf(key);
      const previous = this.#writing.get(name) ?? Promise.resolve();
      const run = previous
        .catch(() => undefined)
        .then(async () => {
          const known = await this.of(key);
          if (known.some((p) => p.repoId === pull.repoId && p.number === pull.number)) return;
          await this.store.putDocument(name, [...known, pull].slice(-maxCrossLinks), crossLinkMemoryMs);
        });
      this.#writing.set(name, run);
      try {
        await run;
      } finally {
        if (this.#writing.get(name) === run) this.#writing.delete(name);
      }
    }
  }
}

/** The check's note on closing references it does not fence: no claim of this installation there. */
export function unfencedNote(refs: readonly ForeignIssue[]): string {
  const names = refs.map((ref) => subjectName(ref.repo, ref.issue)).join(", ");
  return `Also closes ${names} in another repository: claim-hold fences an issue of another repository only while this installation holds a claim on it (an installation cannot see another's claims).`;
}

function documentOf(key: SubjectKey): string {
  return `cross-links:${key.installationId}:${key.repoId}:${key.issue}`;
}
