// Which PRs of other repositories close a subject, so the subject's transitions and attestations re-run their checks.
import type { ForeignIssue, SubjectKey } from "../domain/claim.js";
import { subjectName } from "../domain/claim.js";
import type { CrossLink, FenceStore } from "../providers/fence-store.js";

export type { CrossLink } from "../providers/fence-store.js";

/** The cross links of each subject, kept by the fence store (each remembered in one store call). */
export class CrossLinks {
  constructor(private readonly fences: Pick<FenceStore, "crossLinksOf" | "rememberCrossLink">) {}

  /** The PRs of other repositories remembered as closing `key`. */
  of(key: SubjectKey): Promise<CrossLink[]> {
    return this.fences.crossLinksOf(key);
  }

  /** Remembers that `pull` closes these subjects of other repositories (safe to repeat). */
  async remember(installationId: number, pull: CrossLink, subjects: readonly ForeignIssue[]): Promise<void> {
    for (const subject of subjects) {
      await this.fences.rememberCrossLink(
        { installationId, repoId: subject.repoId, issue: subject.issue },
        pull,
      );
    }
  }
}

/** The check's note on closing references it does not fence: no claim of this installation there. */
export function unfencedNote(refs: readonly ForeignIssue[]): string {
  const names = refs.map((ref) => subjectName(ref.repo, ref.issue)).join(", ");
  return `Also closes ${names} in another repository: claim-hold fences an issue of another repository only while this installation holds a claim on it (an installation cannot see another's claims).`;
}
