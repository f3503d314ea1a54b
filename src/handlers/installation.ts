// installation / installation_repositories: make sure the managed labels exist in every repository.
import type { Logger } from "pino";
import type { RepoConfigSource } from "../lease/lease-core.js";
import type { AssignmentProvider } from "../providers/assignment-provider.js";

export const labelColours = {
  claimed: {
    color: "1d76db",
    description: "Held by an agent session through claim-hold (managed, do not set by hand)",
  },
  stale: { color: "fbca04", description: "claim-hold: the agent holding this stopped heartbeating" },
};

export interface InstallationEvent {
  installationId: number;
  repositories: { full_name: string }[];
}

/** decide: which repositories need their labels ensured. */
export function repositoriesToPrepare(event: InstallationEvent): string[] {
  return event.repositories.map((r) => r.full_name);
}

/** apply: ensure the labels, one repository at a time (a failure is logged and does not stop the rest). */
export async function prepareRepositories(
  event: InstallationEvent,
  deps: { assignments: AssignmentProvider; configs: RepoConfigSource; log: Logger },
): Promise<void> {
  for (const repo of repositoriesToPrepare(event)) {
    try {
      const { labels } = await deps.configs.load(event.installationId, repo);
      await deps.assignments.ensureLabels({ installationId: event.installationId, repo }, [
        { name: labels.claimed, ...labelColours.claimed },
        { name: labels.stale, ...labelColours.stale },
      ]);
    } catch (error) {
      deps.log.error({ repo, err: error }, "could not create the managed labels");
    }
  }
}
