// Who last added or removed a claim's evidence (its assignee, or a label) on a Gitea issue: a pure reading of the timeline entries.
import type { ClaimEvidence, EvidenceChange } from "../assignment-provider.js";
import { giteaGhostLogin, giteaUserIsPerson } from "./gitea-person.js";
import type { GiteaTimelineEntry } from "./gitea-schemas.js";

/**
 * The newest change of `evidence` among an issue's timeline entries (oldest first, as Gitea lists
 * them), or null when none of them changed it. An `assignees` entry names its `assignee` and
 * whether it was `removed_assignee`; a `label` entry its `label`, with body `"1"` when added and
 * empty when removed. Whether the one who added or removed it is a person is `giteaUserIsPerson`'s rule, the one
 * deliveries are judged by.
 */
export function newestEvidenceChange(
  entries: readonly GiteaTimelineEntry[],
  evidence: ClaimEvidence,
  botLogin: string,
): EvidenceChange | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    const removed = removalOf(entry, evidence);
    if (removed === null) continue;
    const user = entry.user;
    return {
      kind: removed ? "removed" : "added",
      by: user?.login ?? giteaGhostLogin,
      byPerson: giteaUserIsPerson(user, botLogin),
    };
  }
  return null;
}

/** Whether the entry removed (true) or added (false) `evidence`; null when it is about something else. */
function removalOf(entry: GiteaTimelineEntry, evidence: ClaimEvidence): boolean | null {
  if ("assignee" in evidence) {
    if (entry.type !== "assignees") return null;
    if (entry.assignee?.login.toLowerCase() !== evidence.assignee.toLowerCase()) return null;
    return entry.removed_assignee === true;
  }
  if (entry.type !== "label" || entry.label?.name !== evidence.label) return null;
  return entry.body !== "1";
}
