// installation / installation_repositories: make sure the managed labels exist in every repository and build their candidate index;
// installation.deleted: forget the installation's keys.
import type { EmitterWebhookEvent } from "@octokit/webhooks";
import type { Logger } from "pino";
import type { RepoConfigSource } from "../config/config-source.js";
import type { AssignmentProvider } from "../providers/assignment-provider.js";
import type { QueueRefresh } from "../providers/queue-store.js";
import type { Stores } from "../providers/stores.js";
import type { WebhookHandler } from "./webhook-guard.js";

type AddedPayload = EmitterWebhookEvent<
  "installation.created" | "installation_repositories.added"
>["payload"];

export const labelColours = {
  claimed: {
    color: "1d76db",
    description: "Held by an agent session through claim-hold (managed, do not set by hand)",
  },
  stale: { color: "fbca04", description: "claim-hold: the agent holding this stopped heartbeating" },
  needsHuman: { color: "d93f0b", description: "claim-hold: the agent holding this asked for a person" },
  overBudget: {
    color: "b60205",
    description: "claim-hold: agent spend reached the budget; claims/next skips it until removed",
  },
};

export interface InstallationEvent {
  installationId: number;
  repositories: { id?: number; full_name: string }[];
}

/** Repositories whose candidate index an installation event refreshes at once; the rest wait for a miss or the next reconcile. */
export const maxInstallationRefreshes = 5;

/** decide: which repositories need their labels ensured. */
export function repositoriesToPrepare(event: InstallationEvent): string[] {
  return event.repositories.map((r) => r.full_name);
}

export function installationAdded(deps: {
  assignments: AssignmentProvider;
  configs: RepoConfigSource;
  refreshQueue?: QueueRefresh;
}): WebhookHandler<AddedPayload, InstallationEvent> {
  return {
    decide: (payload) => ({
      installationId: payload.installation.id,
      repositories:
        "repositories_added" in payload ? payload.repositories_added : (payload.repositories ?? []),
    }),
    async apply(event, log) {
      await prepareRepositories(event, { ...deps, log });
      if (deps.refreshQueue) await refreshQueues(event, { refreshQueue: deps.refreshQueue, log });
    },
  };
}

/** apply: build the candidate index of the first few repositories (a failure is logged and does not stop the rest). */
export async function refreshQueues(
  event: InstallationEvent,
  deps: { refreshQueue: QueueRefresh; log: Logger },
): Promise<void> {
  for (const { id, full_name: repo } of event.repositories.slice(0, maxInstallationRefreshes)) {
    if (id === undefined) continue;
    try {
      await deps.refreshQueue({ installationId: event.installationId, repoId: id, repo });
    } catch (error) {
      deps.log.error({ repo, err: error }, "could not build the candidate index");
    }
  }
}

export function installationDeleted(deps: {
  stores: Pick<Stores, "installations">;
}): WebhookHandler<EmitterWebhookEvent<"installation.deleted">["payload"], number> {
  return {
    decide: (payload) => payload.installation.id,
    async apply(installationId, log) {
      await deps.stores.installations.purgeInstallation(installationId);
      log.info({ installationId }, "installation removed: its keys were purged");
    },
  };
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
        { name: labels.needsHuman, ...labelColours.needsHuman },
        { name: labels.overBudget, ...labelColours.overBudget },
      ]);
    } catch (error) {
      deps.log.error({ repo, err: error }, "could not create the managed labels");
    }
  }
}
