// What a transition changes on a Gitea issue as it stands: the new assignee list and the labels to add and remove (pure).
import type { GiteaIssue } from "./gitea-schemas.js";

export interface IssueWritePlan {
  /** The issue's whole new assignee list (Gitea replaces it), or null when it would not change. */
  assignees: string[] | null;
  /** Label names the issue does not carry yet. */
  addLabels: string[];
  /** Ids of labels the issue carries that the transition removes. */
  removeLabelIds: number[];
}

/**
 * Writes only what differs from the issue, so a repeated transition sends nothing. Logins and
 * label names compare case-insensitively, as Gitea matches them; assignees nobody asked about keep
 * their place in the list; a label both added and removed is removed.
 */
export function planIssueWrites(
  issue: Pick<GiteaIssue, "assignees" | "labels">,
  write: { assign?: string[]; unassign?: string[]; addLabels?: string[]; removeLabels?: string[] },
): IssueWritePlan {
  const current = (issue.assignees ?? []).map((user) => user.login);
  const lower = (values: readonly string[]) => new Set(values.map((v) => v.toLowerCase()));
  const unassign = lower(write.unassign ?? []);
  const next = current.filter((login) => !unassign.has(login.toLowerCase()));
  for (const login of write.assign ?? []) {
    if (!lower(next).has(login.toLowerCase())) next.push(login);
  }
  const changed = next.length !== current.length || next.some((login, i) => login !== current[i]);

  const carried = issue.labels ?? [];
  const carriedNames = lower(carried.map((label) => label.name));
  const remove = lower(write.removeLabels ?? []);
  const addLabels: string[] = [];
  const seen = new Set([...carriedNames, ...remove]);
  for (const name of write.addLabels ?? []) {
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    addLabels.push(name);
  }
  const removeLabelIds = carried
    .filter((label) => remove.has(label.name.toLowerCase()))
    .map((label) => label.id);
  return { assignees: changed ? next : null, addLabels, removeLabelIds };
}
