// Wires claim-hold: providers, lease core, janitor, HTTP API and webhook handlers, as a Probot app or, on a Gitea instance alone, without Probot.

import type { ApplicationFunction, Probot } from "probot";
import type { GiteaConfig } from "./config/gitea-config.js";
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
import type { AppRequestHandler, ClaimHoldOptions } from "./wiring/claim-hold-options.js";
import { listOf, queueByForge, routeByForge, unservedChecks, unservedQueue } from "./wiring/forge-routing.js";
import { createGiteaProviders } from "./wiring/gitea-providers.js";
import { giteaHookSecretsOf, registerGiteaWebhookJob } from "./wiring/gitea-webhook-registration.js";
import { giteaWebhookHandler } from "./wiring/gitea-webhooks.js";
import { createGitHubProviders } from "./wiring/github-providers.js";
import { createHttpHandler } from "./wiring/http-api.js";
import { createJanitorJobs } from "./wiring/janitor-jobs.js";
import { createLeaseServices } from "./wiring/lease-services.js";
import { createNotifications } from "./wiring/notifications.js";
import { createGiteaQueueFeed, createQueueFeed } from "./wiring/queue-feed.js";
import { createRepoConfigSource, type RepoConfigCache } from "./wiring/repo-config-source.js";
import { withGiteaRecord } from "./wiring/served-installations.js";

/** The claims gauge counts every held claim, not the dashboard's first page of each repository. */
const countedRecordsPerRepository = 100_000;

export type {
  AppRequestHandler,
  ClaimHoldOptions,
  ClaimHoldServices,
} from "./wiring/claim-hold-options.js";

/** The App as a Probot application function: GitHub, and the Gitea instance of `options.gitea` if any. */
export function createClaimHoldApp(options: ClaimHoldOptions): ApplicationFunction {
  return (probot: Probot, { addHandler }) => wireClaimHold(options, probot, addHandler);
}

/**
 * The App on a Gitea (or Forgejo) instance alone, without Probot: no GitHub provider is built, so no
 * request goes to GitHub and no GitHub webhook is received. Its HTTP handlers, in the order to try them.
 */
export function createGiteaOnlyApp(
  options: ClaimHoldOptions & { gitea: NonNullable<ClaimHoldOptions["gitea"]> },
): AppRequestHandler[] {
  const handlers: AppRequestHandler[] = [];
  wireClaimHold(options, null, (handler) => handlers.push(handler));
  return handlers;
}

/**
 * The wiring, read top to bottom: every part is built from the parts above it (no late binding), so
 * splitting it would only move the order elsewhere. `probot` null: no GitHub side (`options.gitea` then
 * is the one forge served).
 */
function wireClaimHold(
  options: ClaimHoldOptions,
  probot: Probot | null,
  addHandler: (handler: AppRequestHandler) => void,
): void {
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
  const github = probot ? createGitHubProviders(probot, options, { metrics, meter, now, log }) : undefined;
  // Each Gitea instance its own client, write limiter and bot account (docs/reference/gitea-surfaces.md#several-instances).
  const giteaConfigs = listOf<GiteaConfig>(options.gitea);
  const giteas = giteaConfigs.map((config) => ({
    config,
    ...createGiteaProviders(config, options, { now, log }),
  }));
  const [firstGitea] = giteas;
  const served = github
    ? { github, gitea: giteas }
    : firstGitea
      ? { gitea: [firstGitea, ...giteas.slice(1)] as const }
      : null;
  if (!served) throw new Error("claim-hold serves GitHub, a Gitea instance, or both: neither is configured");
  // The lease core asks by installation record; a Gitea record's calls go to its instance's providers.
  const forges = routeByForge(served);
  const leaseEvents = options.leaseEvents ?? new MemoryLeaseEventBus();
  const leaseStreams = createLeaseStreams(
    options.maxLeaseStreams !== undefined ? { max: options.maxLeaseStreams } : {},
  );
  const notifications = createNotifications(options, { metrics, now, log });
  const { notifier, sender, outbox } = notifications;
  const queue = github
    ? createQueueFeed({ source: github.candidates, store: stores.queue, now, log })
    : undefined;
  // Without a Gitea instance this is the GitHub feed itself: nothing is wrapped.
  const githubQueue =
    github && queue
      ? { refresh: queue.refresh, refreshByName: queue.refreshByName, source: github.candidates }
      : undefined;
  const leaseQueue = firstGitea
    ? queueByForge({
        github: githubQueue,
        gitea: giteas.map((gitea) => ({
          installationId: gitea.installationId,
          ...createGiteaQueueFeed({
            client: gitea.client,
            source: gitea.candidates,
            permissions: gitea.permissions,
            store: stores.queue,
            now,
            log,
          }),
        })),
      })
    : (githubQueue ?? unservedQueue);
  const giteaRepoConfigs = giteas.map((gitea) => createRepoConfigSource(gitea.identity, log));
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
    // Without GitHub, the fence's checks on a GitHub installation's record are nobody's.
    {
      assignments: forges.assignments,
      identity: forges.identity,
      checks: github?.checks ?? unservedChecks,
    },
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
      otherForges: giteas.map((gitea, index) => ({
        installationId: gitea.installationId,
        checks: gitea.checks,
        configs: giteaRepoConfigs[index] as RepoConfigCache,
        assignments: gitea.assignments,
      })),
    },
  );
  const { janitor, jobs, operatorSweep } = createJanitorJobs(options, {
    stores,
    assignments,
    configs,
    installations: firstGitea
      ? withGiteaRecord(
          github?.installations,
          giteas.map((gitea) => gitea.installationId),
        )
      : (github?.installations ?? { listInstallations: async () => [] }),
    events,
    notifier,
    retryUnfinishedChecks: () => fence.retryUnfinished(),
    meter,
    metrics,
    now,
    log,
    refreshQueue: leaseQueue.refresh,
    fleet: fleetLogins,
  });
  // The App's own Gitea hooks, a pass per instance (docs/reference/gitea-surfaces.md#the-apps-own-webhooks).
  const giteaHooks = giteas.map((gitea) =>
    registerGiteaWebhookJob(jobs, {
      config: gitea.config,
      client: gitea.client,
      publicUrl: options.publicUrl,
      several: giteas.length > 1,
      ...(options.disabledJobs ? { disabledJobs: options.disabledJobs } : {}),
      log,
    }),
  );
  jobs.start();
  for (const hooks of giteaHooks) hooks?.start();
  notifications.start();
  // Each record's links go to its own forge: chosen here, once, by the record id (domain/forge.ts).
  const webBaseOf = webBasesOf({
    github: githubWebUrlOf(options.githubBaseUrl),
    gitea: giteaConfigs,
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
      identity: forges.identity,
      ...(firstGitea ? { forges: forges.forges } : {}),
      stores,
      jobs,
      operatorSweep,
      metrics,
      readFleet: () => fleet(true),
      readTimeline: (windowMs) => readTimeline({ stores, outbox, webBaseOf, now }, windowMs),
      readSubject: (subject) =>
        readSubject(
          {
            // GitHub's subject by its repository; a Gitea subject by its record (routeByForge).
            installationOf: forges.installationOf,
            subjectWithKey: (...args) => core.subjectWithKey(...args),
            claims: stores.claims,
            fences,
            peekConfig: (installationId, name) => configs.peek(installationId, name),
            verdictOf: (...args) => fence.verdictOf(...args),
            outbox,
            webBaseOf,
            now,
          },
          subject,
        ),
      servesRecord: forges.serves,
      leaseEvents: { bus: leaseEvents, streams: leaseStreams },
      accountNames: createAccountNames({
        lookup: async (installationId) => github?.installations.accountLogin(installationId) ?? null,
        known: knownAccountNames(giteaConfigs),
        now,
        onError: (installationId, error) =>
          log.warn(
            { err: error, installationId },
            "installation account not read; the dashboard shows its id",
          ),
      }),
      operatorTakeBack: (request) =>
        operatorTakeBack(
          { stores, fence, assignments, configs, installationOf: forges.installationOf, now, leaseEvents },
          request,
          log,
        ),
      operatorClearNeedsHuman: (request) =>
        operatorClearNeedsHuman(
          { stores, assignments, configs, installationOf: forges.installationOf, now, leaseEvents },
          request,
          log,
        ),
      operatorDeliveries: notifications.operator,
      now,
      log,
    }),
  );
  // GitHub's webhooks (Probot's route): not received when the App serves no GitHub.
  if (probot && github && queue) {
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
  }
  // The Gitea and Forgejo instances: one webhook intake, each delivery handled as its instance's
  // (docs/architecture.md#gitea-and-forgejo).
  const giteaWebhooks = giteas.map((gitea, index) => ({
    secret: gitea.config.webhookSecret,
    hookSecrets: giteaHookSecretsOf(gitea.config, options.publicUrl),
    installationId: gitea.installationId,
    ...(giteas.length > 1 ? { deliveryScope: String(gitea.config.installationId) } : {}),
    bot: gitea.bot,
    stores,
    assignments: gitea.assignments,
    configs: giteaRepoConfigs[index] as RepoConfigCache,
    identity: gitea.identity,
    reactions: gitea.reactions,
    events,
    fence,
    fences,
    fleet: fleetLogins,
    leaseEvents,
    reads: {
      readIssue: (owner: string, repo: string, index: number) => gitea.client.readIssue(owner, repo, index),
      readComment: (owner: string, repo: string, id: number) => gitea.client.getComment(owner, repo, id),
      listOpenPullRequests: (owner: string, repo: string, page: number) =>
        gitea.client.listOpenPullRequests(owner, repo, page),
    },
    webhookDuration: metrics.webhookDuration,
    queue: {
      store: stores.queue,
      source: gitea.candidates,
      readIssue: (owner: string, repo: string, index: number) => gitea.client.readIssue(owner, repo, index),
    },
    now,
    log,
  }));
  const [firstWebhooks] = giteaWebhooks;
  if (firstWebhooks) addHandler(giteaWebhookHandler([firstWebhooks, ...giteaWebhooks.slice(1)]));
}
