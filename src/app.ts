// Wires claim-hold into a Probot app: providers, lease core, janitor, HTTP API and webhook handlers.

import type { ApplicationFunction, Probot } from "probot";
import { createAccountNames, knownAccountNames } from "./dashboard/account-names.js";
import { githubWebUrlOf, webBasesOf } from "./dashboard/github-links.js";
import { readFleet } from "./dashboard/read-fleet.js";
import { readSubject } from "./dashboard/read-subject.js";
import { readTimeline } from "./dashboard/timeline/read-timeline.js";
import { operatorClearNeedsHuman } from "./handlers/operator-clear-needs-human.js";
import { operatorTakeBack } from "./handlers/operator-take-back.js";
import { registerWebhooks } from "./handlers/register.js";
import { createLeaseStreams } from "./http/lease-streams.js";
import { createSteadyClock } from "./lease/steady-clock.js";
import { collectInBackground, createMetrics } from "./metrics/create-metrics.js";
import { measureStores } from "./metrics/measure-store.js";
import { MemoryFenceStore } from "./providers/memory/memory-fence-store.js";
import { MemoryLeaseEventBus } from "./providers/memory/memory-lease-event-bus.js";
import { RequestMeter } from "./request-meter.js";
import type { ClaimHoldOptions } from "./wiring/claim-hold-options.js";
import { queueByForge, routeByForge } from "./wiring/forge-routing.js";
import { createGiteaProviders } from "./wiring/gitea-providers.js";
import { giteaWebhookHandler } from "./wiring/gitea-webhooks.js";
import { createGitHubProviders } from "./wiring/github-providers.js";
import { createHttpHandler } from "./wiring/http-api.js";
import { createJanitorJobs } from "./wiring/janitor-jobs.js";
import { createLeaseServices } from "./wiring/lease-services.js";
import { createNotifications } from "./wiring/notifications.js";
import { createGiteaQueueFeed, createQueueFeed } from "./wiring/queue-feed.js";
import { createRepoConfigSource } from "./wiring/repo-config-source.js";
import { withGiteaRecord } from "./wiring/served-installations.js";

/** The claims gauge counts every held claim, not the dashboard's first page of each repository. */
const countedRecordsPerRepository = 100_000;

export type { ClaimHoldOptions, ClaimHoldServices } from "./wiring/claim-hold-options.js";

/**
 * The App as a Probot application function. Its length is the wiring, read top to bottom: every part
 * is built from the parts above it (no late binding), so splitting it would only move the order elsewhere.
 */
export function createClaimHoldApp(options: ClaimHoldOptions): ApplicationFunction {
  return (probot: Probot, { addHandler }) => {
    const { log } = options;
    const now =
      options.now ??
      createSteadyClock({
        onJump: (jumpMs) => log.warn({ jumpMs }, "the wall clock jumped: absorbed, paid back gradually"),
      });
    const metrics = createMetrics();
    const meter = new RequestMeter();
    const stores = measureStores(options.stores, metrics);
    const fences = options.fences ?? new MemoryFenceStore(now);
    const github = createGitHubProviders(probot, options, { metrics, meter, now, log });
    const gitea = options.gitea ? createGiteaProviders(options.gitea, options, { now, log }) : undefined;
    // The lease core asks by installation record; a Gitea record's calls go to the Gitea providers.
    const forges = routeByForge({ github, gitea });
    const leaseEvents = options.leaseEvents ?? new MemoryLeaseEventBus();
    const leaseStreams = createLeaseStreams(
      options.maxLeaseStreams !== undefined ? { max: options.maxLeaseStreams } : {},
    );
    const notifications = createNotifications(options, { metrics, now, log });
    const { notifier, sender, outbox } = notifications;
    const queue = createQueueFeed({ source: github.candidates, store: stores.queue, now, log });
    // Without a Gitea instance this is the GitHub feed itself: nothing is wrapped.
    const githubQueue = {
      refresh: queue.refresh,
      refreshByName: queue.refreshByName,
      source: github.candidates,
    };
    const leaseQueue = gitea
      ? queueByForge({
          github: githubQueue,
          gitea: {
            installationId: gitea.installationId,
            ...createGiteaQueueFeed({
              client: gitea.client,
              source: gitea.candidates,
              store: stores.queue,
              now,
              log,
            }),
          },
        })
      : githubQueue;
    const giteaConfigs = gitea ? createRepoConfigSource(gitea.identity, log) : null;
    const {
      assignments,
      configs,
      core,
      fence,
      fleet: fleetLogins,
      needsHuman,
      picker,
      events,
    } = createLeaseServices(
      { assignments: forges.assignments, identity: forges.identity, checks: github.checks },
      options,
      {
        stores,
        fences,
        notifier,
        leaseEvents,
        now,
        log,
        queueRefresh: leaseQueue.refreshByName,
        queue: { refresh: leaseQueue.refresh, source: leaseQueue.source },
        // The fence's checks (commit statuses on Gitea), configs and reads, by installation record.
        otherForges:
          gitea && giteaConfigs
            ? [
                {
                  installationId: gitea.installationId,
                  checks: gitea.checks,
                  configs: giteaConfigs,
                  assignments: gitea.assignments,
                },
              ]
            : [],
      },
    );
    const { janitor, jobs, operatorSweep } = createJanitorJobs(options, {
      stores,
      assignments,
      configs,
      installations: gitea
        ? withGiteaRecord(github.installations, gitea.installationId)
        : github.installations,
      events,
      notifier,
      retryUnfinishedChecks: () => fence.retryUnfinished(),
      meter,
      metrics,
      now,
      log,
      refreshQueue: leaseQueue.refresh,
    });
    jobs.start();
    notifications.start();
    // Each record's links go to its own forge: chosen here, once, by the record id (domain/forge.ts).
    const webBaseOf = webBasesOf({
      github: githubWebUrlOf(options.githubBaseUrl),
      gitea: options.gitea,
    });
    const fleet = (withPullRequests: boolean, recordsPerRepository?: number) =>
      readFleet(
        {
          stores,
          fences,
          peekConfig: (installationId, repo) => configs.peek(installationId, repo),
          verdictOf: (...args) => fence.verdictOf(...args),
          lastReport: () => janitor.lastReport(),
          now,
        },
        { withPullRequests, ...(recordsPerRepository ? { recordsPerRepository } : {}) },
      );
    const stopClaimsRefresh = collectInBackground(metrics, {
      claimsByState: async () => {
        const { counts, claims } = await fleet(false, countedRecordsPerRepository);
        const needsHuman = claims
          .filter((claim) => claim.reasons.includes("needs-human"))
          .map((claim) => `${claim.installationId}:${claim.subject}:${claim.generation}`);
        return { counts, needsHuman };
      },
      githubRequests: () => meter.totals,
      now,
      log,
    });
    const stop = async () => {
      // Open streams would keep the HTTP server from closing: they end first.
      leaseStreams.closeAll();
      stopClaimsRefresh();
      await jobs.stop();
      await notifications.stop();
    };
    const settled = () => events.settled();
    options.onReady?.({
      core,
      fence,
      janitor,
      jobs,
      meter,
      metrics,
      notifier,
      sender,
      outbox,
      settled,
      closeStreams: () => leaseStreams.closeAll(),
      stop,
    });
    addHandler(
      createHttpHandler(options, {
        core,
        picker,
        fence,
        identity: github.identity,
        ...(gitea ? { forges: forges.forges } : {}),
        stores,
        jobs,
        operatorSweep,
        metrics,
        readFleet: () => fleet(true),
        readTimeline: (windowMs) => readTimeline({ stores, outbox, webBaseOf, now }, windowMs),
        readSubject: (repo, issue) =>
          readSubject(
            {
              installationFor: (name) => github.identity.installationFor(name),
              subjectWithKey: (...args) => core.subjectWithKey(...args),
              claims: stores.claims,
              fences,
              peekConfig: (installationId, name) => configs.peek(installationId, name),
              verdictOf: (...args) => fence.verdictOf(...args),
              outbox,
              webBaseOf,
              now,
            },
            repo,
            issue,
          ),
        leaseEvents: { bus: leaseEvents, streams: leaseStreams },
        accountNames: createAccountNames({
          lookup: (installationId) => github.installations.accountLogin(installationId),
          known: knownAccountNames(options.gitea),
          now,
          onError: (installationId, error) =>
            log.warn(
              { err: error, installationId },
              "installation account not read; the dashboard shows its id",
            ),
        }),
        operatorTakeBack: (request) =>
          operatorTakeBack(
            { stores, fence, assignments, configs, identity: github.identity, now, leaseEvents },
            request,
            log,
          ),
        operatorClearNeedsHuman: (request) =>
          operatorClearNeedsHuman(
            { stores, assignments, configs, identity: github.identity, now, leaseEvents },
            request,
            log,
          ),
        operatorDeliveries: notifications.operator,
        now,
        log,
      }),
    );
    registerWebhooks(probot, {
      stores,
      assignments,
      configs,
      now,
      log,
      events,
      fence,
      fences,
      fleet: fleetLogins,
      identity: github.identity,
      reactions: github.reactions,
      webhookDuration: metrics.webhookDuration,
      queueFeed: queue.feed,
      refreshQueue: queue.refresh,
      leaseEvents,
      needsHuman,
    });
    // A Gitea or Forgejo instance: its webhook intake (docs/architecture.md#gitea-and-forgejo-in-progress).
    if (gitea && giteaConfigs && options.gitea) {
      addHandler(
        giteaWebhookHandler({
          secret: options.gitea.webhookSecret,
          installationId: gitea.installationId,
          bot: gitea.bot,
          stores,
          assignments: gitea.assignments,
          configs: giteaConfigs,
          identity: gitea.identity,
          reactions: gitea.reactions,
          events,
          fence,
          fences,
          fleet: fleetLogins,
          leaseEvents,
          webhookDuration: metrics.webhookDuration,
          queue: {
            store: stores.queue,
            source: gitea.candidates,
            readIssue: (owner, repo, index) => gitea.client.readIssue(owner, repo, index),
          },
          now,
          log,
        }),
      );
    }
  };
}
