// Wires claim-hold into a Probot app: providers, lease core, HTTP API and webhook handlers.

import type { Logger } from "pino";
import type { ApplicationFunction, Probot } from "probot";
import { createRepoConfigSource } from "./config/repo-config-source.js";
import { dashboardPaths, mountDashboard } from "./dashboard/mount-dashboard.js";
import { type FleetView, readFleet } from "./dashboard/read-fleet.js";
import { type ClaimRecord, parseLeaseId, type SubjectKey } from "./domain/claim.js";
import { registerWebhooks } from "./handlers/register.js";
import { apiHandler, createApi } from "./http/create-api.js";
import { createFailedAuthLimiter } from "./http/failed-auth-limiter.js";
import { createReadCache } from "./http/read-cache.js";
import { createReadLimiter } from "./http/read-limiter.js";
import { mountAttestRoute } from "./http/routes/attest.js";
import { Janitor } from "./janitor/janitor.js";
import { JobRegistry } from "./janitor/job-registry.js";
import { FencedAssignments } from "./lease/fenced-writes.js";
import { HolderPermissions } from "./lease/holder-permission.js";
import { LeaseCore } from "./lease/lease-core.js";
import { createMarkerSeal } from "./lease/marker-seal.js";
import { MergeFence } from "./lease/merge-fence.js";
import { createSteadyClock } from "./lease/steady-clock.js";
import { createTokenMinter } from "./lease/tokens.js";
import { type ClaimHoldMetrics, createMetrics } from "./metrics/create-metrics.js";
import { measureStore } from "./metrics/measure-store.js";
import { mountMetrics } from "./metrics/mount-metrics.js";
import type { FenceStore } from "./providers/fence-store.js";
import { GitHubAssignmentProvider } from "./providers/github/github-assignment-provider.js";
import { GitHubChecksProvider } from "./providers/github/github-checks-provider.js";
import { GitHubCommentReactions } from "./providers/github/github-comment-reactions.js";
import { GitHubIdentityProvider } from "./providers/github/github-identity-provider.js";
import { GitHubInstallationSource } from "./providers/github/github-installation-source.js";
import type { LivenessStore } from "./providers/liveness-store.js";
import { MemoryFenceStore } from "./providers/memory/memory-fence-store.js";
import { RequestMeter } from "./request-meter.js";

export interface ClaimHoldOptions {
  store: LivenessStore;
  /** Attestations and the PR/branch indexes of the merge fence (default: in memory, like the store's default). */
  fences?: FenceStore;
  /** The App's id: the check-run list is filtered to the App's own `claim-hold` runs. */
  appId?: number;
  /** Public base URL of this App (the check run's details link). */
  publicUrl?: string;
  tokenSecret: string;
  /** Longest wait for another write on the same subject before writing anyway (default 8 s). */
  writeFenceWaitMs?: number;
  /** The secret being rotated out: markers it signed still verify (SPEC invariant 11). */
  previousTokenSecret?: string;
  /** REST base URL of GitHub (or GHE / the simulator), for calls made with the agent's own token. */
  githubBaseUrl: string;
  log: Logger;
  now?: () => number;
  adminToken?: string;
  /** Bearer token `/metrics` requires (absent: the endpoint is open, like most Prometheus endpoints). */
  metricsToken?: string;
  /** `X-Forwarded-For` hops to trust for the client address (`CLAIM_HOLD_TRUST_PROXY`; absent: the socket's). */
  trustProxyHops?: number;
  /** Inventory and subject reads per minute per login, each route family apart (`CLAIM_HOLD_READS_PER_MINUTE`; default 30). */
  readsPerMinute?: number;
  /** Whether real App credentials are loaded (readiness). */
  credentialsLoaded?: boolean;
  /** Janitor schedule: seconds between sweeps, and every how many sweeps a reconcile runs. */
  janitorIntervalSeconds?: number;
  reconcileEvery?: number;
  /** Scheduled jobs left off (tests drive the janitor through its route or directly). */
  disabledJobs?: string[];
  sleep?: (ms: number) => Promise<void>;
  /** Receives the wired services (tests, the demo, benchmarks). */
  onReady?: (services: ClaimHoldServices) => void;
}

export interface ClaimHoldServices {
  core: LeaseCore;
  fence: MergeFence;
  janitor: Janitor;
  jobs: JobRegistry;
  meter: RequestMeter;
  metrics: ClaimHoldMetrics;
}

const apiPaths = /^\/(api\/v1\/|healthz$|readyz$|metrics$)/;

export function createClaimHoldApp(options: ClaimHoldOptions): ApplicationFunction {
  return (probot: Probot, { addHandler }) => {
    const now =
      options.now ??
      createSteadyClock({
        onJump: (jumpMs) =>
          options.log.warn({ jumpMs }, "the wall clock jumped: absorbed, paid back gradually"),
      });
    const { log } = options;
    // Late-bound: the claims gauge reads the fleet through the services wired below.
    let fleetReader: (options: { withPullRequests: boolean }) => Promise<FleetView> = async () => {
      throw new Error("the fleet is read before the App is wired");
    };
    const metrics = createMetrics({
      claimsByState: async () => (await fleetReader({ withPullRequests: false })).counts,
      githubRequests: () => meter.totals,
    });
    const store = measureStore(options.store, metrics);
    const app = probot;
    const octokitFor = async (installationId: number) =>
      observeRateLimit(await app.auth(installationId), metrics);
    const meter = new RequestMeter();
    const onRequest = (kind: string) => meter.count(kind);
    const identity = new GitHubIdentityProvider({
      baseUrl: options.githubBaseUrl,
      appOctokit: () => app.auth(),
      octokitFor,
      now,
      onRequest,
    });
    const github = new GitHubAssignmentProvider({
      octokitFor,
      onRequest,
      seal: createMarkerSeal(options.tokenSecret, options.previousTokenSecret),
      onMarkerRejected: (reason) => {
        metrics.markersRejected.inc();
        log.warn({ reason }, "ignored a claim marker that is not the App's own");
      },
    });
    // Every transition writes through the fence (invariant 13): one write per subject in flight.
    const assignments = new FencedAssignments({
      inner: github,
      store,
      log,
      ...(options.writeFenceWaitMs !== undefined ? { waitMs: options.writeFenceWaitMs } : {}),
    });
    const configs = createRepoConfigSource(identity, log);
    /** Features that react when a subject changes hands (the check run re-evaluates linked PRs). */
    const subjectListeners: ((key: SubjectKey, record: ClaimRecord) => Promise<void>)[] = [];
    const tokens = createTokenMinter(options.tokenSecret, undefined, options.previousTokenSecret);
    const core = new LeaseCore({
      store,
      assignments,
      configs,
      tokens,
      now,
      log,
      subjectChanged: (key, record) => subjectChanged(key, record),
      permissions: new HolderPermissions({
        permission: (installationId, repo, login) => identity.permission(installationId, repo, login),
        now,
      }),
    });
    const fences = options.fences ?? new MemoryFenceStore(now);
    const fence = new MergeFence({
      store,
      fences,
      checks: new GitHubChecksProvider({
        octokitFor,
        ...(options.appId ? { appId: options.appId } : {}),
        onRequest,
      }),
      configs,
      verifyLease: (leaseId, token) => core.verify(leaseId, token),
      tokenDigests: (token) => tokens.digests(token),
      assignments,
      now,
      log,
      ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    });
    subjectListeners.push(async (_key, record) => {
      await fence.claimChanged(record, null);
    });
    const subjectChanged = async (key: SubjectKey, record: ClaimRecord) => {
      for (const listener of subjectListeners) await listener(key, record);
    };
    const janitor = new Janitor({
      store,
      assignments,
      configs,
      now,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      log: log.child({ name: "janitor" }),
      installations: new GitHubInstallationSource({ appOctokit: () => app.auth(), onRequest }),
      measure: (work) => meter.measure(work),
      subjectChanged,
    });
    /** Every sweep (scheduled or operator-run) is counted in the metrics. */
    const observedJanitor = {
      sweep: async (sweepOptions: Parameters<Janitor["sweep"]>[0]) => {
        try {
          const report = await janitor.sweep(sweepOptions);
          metrics.observeSweep(report);
          return report;
        } catch (error) {
          metrics.janitorSweeps.inc({ result: "failed" });
          throw error;
        }
      },
    };
    const jobs = new JobRegistry({ store, log, now, disabled: options.disabledJobs ?? [] });
    let sweeps = 0;
    jobs.register({
      name: "janitor",
      intervalMs: (options.janitorIntervalSeconds ?? 300) * 1000,
      run: async () => {
        sweeps++;
        await observedJanitor.sweep({ reconcile: sweeps % (options.reconcileEvery ?? 12) === 0 });
      },
    });
    jobs.start();
    fleetReader = (fleetOptions) =>
      readFleet(
        {
          store,
          fences,
          peekConfig: (installationId, repo) => configs.peek(installationId, repo),
          verdictOf: (...args) => fence.verdictOf(...args),
          lastReport: () => janitor.lastReport(),
          now,
        },
        fleetOptions,
      );
    options.onReady?.({ core, fence, janitor, jobs, meter, metrics });
    const limiter = createFailedAuthLimiter({ now });
    // From an address over the failed-auth limit, a lease is checked only when that costs no GitHub request.
    const leaseOnRecord = async (leaseId: string) => {
      const key = parseLeaseId(leaseId);
      return key === null || (await store.get(key)) !== null;
    };
    const api = createApi({
      core,
      // The operator's sweep runs under the scheduled job's run lock (SPEC §4.2: the schedule's code path).
      janitor: { sweep: (sweepOptions) => jobs.runNow("janitor", () => observedJanitor.sweep(sweepOptions)) },
      ...(options.adminToken ? { adminToken: options.adminToken } : {}),
      identity,
      limiter,
      reads: {
        cache: createReadCache({ now }),
        limiter: createReadLimiter({
          now,
          ...(options.readsPerMinute !== undefined ? { perMinute: options.readsPerMinute } : {}),
        }),
      },
      ...(options.trustProxyHops !== undefined ? { trustProxyHops: options.trustProxyHops } : {}),
      leaseOnRecord,
      log,
      extend: (api) => {
        mountAttestRoute(api, { fence, limiter, leaseOnRecord });
        mountMetrics(api, {
          registry: metrics.registry,
          ...(options.metricsToken ? { token: options.metricsToken } : {}),
        });
        mountDashboard(api, {
          ...(options.adminToken ? { adminToken: options.adminToken } : {}),
          readFleet: () => fleetReader({ withPullRequests: true }),
          limiter,
          now,
        });
      },
      ready: async () => {
        const checks: Record<string, string> = {};
        try {
          await store.ping();
          checks.store = "ok";
        } catch {
          checks.store = "unreachable";
        }
        checks.credentials = options.credentialsLoaded === false ? "missing" : "ok";
        const janitorStatus = jobs.status("janitor");
        checks.janitor = (janitorStatus?.consecutiveFailures ?? 0) >= 3 ? "failing" : "ok";
        return { ok: Object.values(checks).every((v) => v === "ok"), checks };
      },
    });
    addHandler(apiHandler(api, (path) => apiPaths.test(path) || dashboardPaths.test(path)));

    registerWebhooks(app, {
      store,
      assignments,
      configs,
      now,
      log,
      subjectChanged,
      fence,
      fences,
      identity,
      reactions: new GitHubCommentReactions({ octokitFor }),
      webhookDuration: metrics.webhookDuration,
    });
  };
}

/** Keeps the rate-limit gauge at GitHub's last `x-ratelimit-remaining` (answers and errors alike). */
function observeRateLimit(
  octokit: Awaited<ReturnType<Probot["auth"]>>,
  metrics: ClaimHoldMetrics,
): Awaited<ReturnType<Probot["auth"]>> {
  const record = (headers: Record<string, unknown> | undefined) => {
    const remaining = Number(headers?.["x-ratelimit-remaining"]);
    if (Number.isFinite(remaining)) metrics.rateLimitRemaining.set(remaining);
  };
  octokit.hook.after("request", (response: { headers?: Record<string, unknown> }) =>
    record(response.headers),
  );
  octokit.hook.error("request", (error) => {
    record((error as { response?: { headers?: Record<string, unknown> } }).response?.headers);
    throw error;
  });
  return octokit;
}
