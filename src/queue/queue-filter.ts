// The filters of one `claims/next` pick: the request's merged with the repository's `queue` config and exempt labels, and the capabilities the caller declared.
import type { RepoConfig } from "../config/repo-config.js";
import type { QueueFilter } from "../domain/eligibility.js";

/** The request's filters merged with the repository's `queue.labels`/`excludeLabels` and exempt labels. */
export function queueFilterOf(
  config: Pick<RepoConfig, "queue" | "janitor" | "labels">,
  request: {
    labels?: readonly string[];
    excludeLabels?: readonly string[];
    capabilities?: readonly string[];
  } = {},
): QueueFilter {
  const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])];
  return {
    labels: union(config.queue.labels, request.labels ?? []),
    excludeLabels: union(config.queue.excludeLabels, request.excludeLabels ?? []),
    exemptLabels: [...config.janitor.exemptLabels],
    overBudgetLabel: config.labels.overBudget,
    capabilityPrefix: config.queue.capabilityPrefix,
    capabilities: [...new Set((request.capabilities ?? []).map((c) => c.toLowerCase()))],
  };
}
