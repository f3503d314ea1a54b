// The lease core and the merge fence over the fenced GitHub writes, the repository configs and the token minter.
import type { Logger } from "pino";
import { MergeFence } from "../fence/merge-fence.js";
import { HolderPermissions } from "../lease/calls/holder-permission.js";
import { NeedsHumanShow } from "../lease/calls/needs-human-show.js";
import { FleetLogins } from "../lease/fleet-logins.js";
import { LeaseCore } from "../lease/lease-core.js";
import { createTokenMinter } from "../lease/tokens.js";
import { FencedAssignments } from "../lease/transitions/fenced-writes.js";
import type { Notifier } from "../notify/notifier.js";
import type { ChecksProvider } from "../providers/checks-provider.js";
import type { FenceStore } from "../providers/fence-store.js";
import type { LeaseEventBus } from "../providers/lease-event-bus.js";
import type { CandidateSource, QueueRefresh } from "../providers/queue-store.js";
import type { Stores } from "../providers/stores.js";
import { DirectClaimBlockers } from "../queue/direct-claim-blockers.js";
import { QueuePicker, type RefreshQueue } from "../queue/pick-next.js";
import { createClaimEvents } from "./claim-events.js";
import type { ClaimHoldOptions } from "./claim-hold-options.js";
import { type ForgeProviders, fencePartsByInstallation, type ServedForge } from "./forge-routing.js";
import { createRepoConfigSource } from "./repo-config-source.js";

export type LeaseServices = ReturnType<typeof createLeaseServices>;

export function createLeaseServices(
  /** Every forge's assignments and identity (`routeByForge`), and GitHub's checks for the fence. */
  github: ForgeProviders & { checks: ChecksProvider },
  options: Pick<ClaimHoldOptions, "tokenSecret" | "previousTokenSecret" | "writeFenceWaitMs" | "publicUrl">,
  deps: {
    /** Where transitions publish the live lease events. */
    leaseEvents: LeaseEventBus;
    stores: Stores;
    notifier: Notifier;
    fences: FenceStore;
    now: () => number;
    log: Logger;
    /** Rebuilds a repository's candidate index that never completed a refresh (claims/next asks it). */
    queueRefresh?: RefreshQueue;
    /** The candidate index's refresh and GitHub reads: a direct claim's blockers are made current with them. */
    queue?: { refresh: QueueRefresh; source: Pick<CandidateSource, "openBlockers"> };
    /** Gitea or Forgejo instances: the fence checks their installation records' PRs on them. */
    otherForges?: readonly ServedForge[];
  },
) {
  const { stores, fences, notifier, now, log } = deps;
  const { identity } = github;
  // Every transition writes through the fence (invariant 13): one write per subject in flight.
  const assignments = new FencedAssignments({
    inner: github.assignments,
    stores,
    log,
    ...(options.writeFenceWaitMs !== undefined ? { waitMs: options.writeFenceWaitMs } : {}),
  });
  const configs = createRepoConfigSource(identity, log);
  const tokens = createTokenMinter(options.tokenSecret, undefined, options.previousTokenSecret);
  const fleet = new FleetLogins(stores.fleetLogins, now);
  // One per process: the heartbeats' asks and the webhooks that withdraw the App's ask share its memory.
  const needsHuman = new NeedsHumanShow({ stores, assignments, notifier, now, log });
  // The core and the fence need each other: the fence verifies lease tokens through the core, and
  // every transition (the core's, the janitor's, the webhooks') re-checks the subject's linked PRs.
  const events = createClaimEvents({
    notifier,
    recheck: (change) => fence.claimChanged(change.record, null, change.shownPullRequests),
    log,
    leaseEvents: deps.leaseEvents,
  });
  const core: LeaseCore = new LeaseCore({
    stores,
    assignments,
    configs,
    tokens,
    now,
    log,
    events,
    leaseEvents: deps.leaseEvents,
    candidates: stores.queue,
    ...(deps.queue
      ? { blockers: new DirectClaimBlockers({ index: stores.queue, ...deps.queue, now, log }) }
      : {}),
    notifier,
    fleet,
    needsHuman,
    permissions: new HolderPermissions({
      permission: (installationId, repo, login) => identity.permission(installationId, repo, login),
      now,
    }),
  });
  const fence = new MergeFence({
    stores,
    fences,
    ...fencePartsByInstallation({ checks: github.checks, configs, assignments }, deps.otherForges ?? []),
    verifyLease: (leaseId, token) => core.verify(leaseId, token),
    tokenDigests: (token) => tokens.digests(token),
    fleet,
    notifier,
    now,
    log,
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
  });
  // claims/next claims through the core's own claim path: same read, answers, comment and fencing.
  const picker = new QueuePicker({
    stores,
    claim: (request, pick) => core.claimPicked(request, pick),
    configs,
    ...(deps.queueRefresh ? { refresh: deps.queueRefresh } : {}),
    now,
    log,
  });
  /** `events`: what every transition tells (notifications, and the fence's re-check of linked PRs). */
  return { assignments, configs, core, events, fence, fleet, needsHuman, picker };
}
