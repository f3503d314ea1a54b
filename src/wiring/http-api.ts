// The App's HTTP side: the API with its limiters and read cache, attest, metrics and the dashboard, behind Probot.
import type { Logger } from "pino";
import type { AccountNames } from "../dashboard/account-names.js";
import type { DashboardActions } from "../dashboard/mount-actions.js";
import { dashboardPaths, mountDashboard } from "../dashboard/mount-dashboard.js";
import type { FleetView } from "../dashboard/read-fleet.js";
import { createQueueReader } from "../dashboard/read-queues.js";
import type { SubjectPageData } from "../dashboard/read-subject.js";
import type { TimelineData } from "../dashboard/timeline/read-timeline.js";
import { parseLeaseId } from "../domain/claim.js";
import type { SubjectAddress } from "../domain/subject-address.js";
import type { MergeFence } from "../fence/merge-fence.js";
import { apiHandler, authOf, createApi } from "../http/create-api.js";
import { createFailedAuthLimiter } from "../http/failed-auth-limiter.js";
import type { ServedForges } from "../http/forge-selection.js";
import { heartbeatRoute } from "../http/heartbeat.js";
import { createHeartbeatRoute } from "../http/heartbeat-route.js";
import type { LeaseStreams } from "../http/lease-streams.js";
import { createReadCache } from "../http/read-cache.js";
import { createReadLimiter } from "../http/read-limiter.js";
import { mountAttestRoute } from "../http/routes/attest.js";
import { createJanitorPauses } from "../janitor/janitor-pauses.js";
import type { JobRegistry } from "../janitor/job-registry.js";
import type { SweepOptions, SweepReport } from "../janitor/sweep-types.js";
import type { LeaseCore } from "../lease/lease-core.js";
import type { ClaimHoldMetrics } from "../metrics/create-metrics.js";
import { collectReadiness } from "../metrics/create-metrics.js";
import { mountMetrics } from "../metrics/mount-metrics.js";
import type { IdentityProvider } from "../providers/assignment-provider.js";
import type { LeaseEventBus } from "../providers/lease-event-bus.js";
import { createMemoryRateLimits } from "../providers/memory/memory-rate-limits.js";
import type { Stores } from "../providers/stores.js";
import type { QueuePicker } from "../queue/pick-next.js";
import type { ClaimHoldOptions } from "./claim-hold-options.js";

const apiPaths = /^\/(api\/v1\/|healthz$|readyz$|metrics$)/;

type HttpOptions = Pick<
  ClaimHoldOptions,
  "adminToken" | "metricsToken" | "trustProxyHops" | "readsPerMinute" | "credentialsLoaded" | "limits"
>;

/** A Probot `addHandler` handler answering the API's and the dashboard's paths. */
export function createHttpHandler(
  options: HttpOptions,
  deps: {
    core: LeaseCore;
    /** `claims/next` and the queue view. */
    picker?: QueuePicker;
    fence: MergeFence;
    identity: IdentityProvider;
    /** Every forge the App serves, when more than GitHub: requests name theirs (`X-Claim-Hold-Forge`). */
    forges?: ServedForges;
    stores: Stores;
    jobs: JobRegistry;
    operatorSweep: (options: SweepOptions) => Promise<SweepReport>;
    metrics: ClaimHoldMetrics;
    readFleet: () => Promise<FleetView>;
    readTimeline?: (windowMs: number) => Promise<TimelineData>;
    readSubject?: (subject: SubjectAddress) => Promise<SubjectPageData | null>;
    /** Whether a served forge answers for an installation record (`routeByForge`'s): another forge's subject pages and actions need it. */
    servesRecord?: (installationId: number) => boolean;
    accountNames?: AccountNames;
    /** The dashboard's operator release and hand-back (`/reclaim release` by the operator). */
    operatorTakeBack?: DashboardActions["takeBack"];
    /** The dashboard's "clear needs-human" (a person's removal of the label, by the operator). */
    operatorClearNeedsHuman?: DashboardActions["clearNeedsHuman"];
    /** The dashboard's retry-now and drop of a waiting notification delivery. */
    operatorDeliveries?: DashboardActions["deliveries"];
    /** The live lease events' bus and this replica's open streams. */
    leaseEvents?: { bus: LeaseEventBus; streams: LeaseStreams };
    now: () => number;
    log: Logger;
  },
) {
  const { stores, jobs, now } = deps;
  const limits = options.limits ?? createMemoryRateLimits();
  const limiter = createFailedAuthLimiter({
    now,
    limits,
    store: stores.documents,
    onStoreError: (error) =>
      deps.log.warn({ err: error }, "known GitHub tokens not read or kept in the store"),
  });
  // From an address over the failed-auth limit, a lease is checked only when that costs no GitHub request.
  const leaseOnRecord = async (leaseId: string) => {
    const key = parseLeaseId(leaseId);
    return key === null || (await stores.claims.get(key)) !== null;
  };
  const { metrics } = deps;
  const ready = async () => {
    const checks: Record<string, string> = {};
    try {
      await stores.connection.ping();
      checks.store = "ok";
    } catch {
      checks.store = "unreachable";
    }
    checks.credentials = options.credentialsLoaded === false ? "missing" : "ok";
    const janitorStatus = jobs.status("janitor");
    checks.janitor = (janitorStatus?.consecutiveFailures ?? 0) >= 3 ? "failing" : "ok";
    return { ok: Object.values(checks).every((v) => v === "ok"), checks };
  };
  collectReadiness(metrics, ready);
  const apiDeps: Parameters<typeof createApi>[0] = {
    core: deps.core,
    ...(deps.picker ? { picker: deps.picker } : {}),
    janitor: { sweep: deps.operatorSweep },
    ...(options.adminToken ? { adminToken: options.adminToken } : {}),
    identity: deps.identity,
    ...(deps.forges ? { forges: deps.forges } : {}),
    limiter,
    reads: {
      cache: createReadCache({ now }),
      limiter: createReadLimiter({
        limits,
        ...(options.readsPerMinute !== undefined ? { perMinute: options.readsPerMinute } : {}),
      }),
    },
    ...(options.trustProxyHops !== undefined ? { trustProxyHops: options.trustProxyHops } : {}),
    leaseOnRecord,
    ...(deps.leaseEvents ? { leaseEvents: deps.leaseEvents } : {}),
    log: deps.log,
    extend: (api) => {
      mountAttestRoute(api, { fence: deps.fence, limiter, leaseOnRecord });
      mountMetrics(api, {
        registry: metrics.registry,
        ...(options.metricsToken ? { token: options.metricsToken } : {}),
      });
      mountDashboard(api, {
        ...(options.adminToken ? { adminToken: options.adminToken } : {}),
        readFleet: deps.readFleet,
        ...(deps.readTimeline ? { readTimeline: deps.readTimeline } : {}),
        ...(deps.readSubject ? { readSubject: deps.readSubject } : {}),
        ...(deps.servesRecord ? { serves: deps.servesRecord } : {}),
        ...(deps.accountNames ? { accountNames: deps.accountNames } : {}),
        ...(deps.picker ? { readQueues: queueReaderOf(deps.picker, stores.queue, now) } : {}),
        ...(deps.operatorTakeBack && deps.operatorClearNeedsHuman
          ? {
              actions: {
                takeBack: deps.operatorTakeBack,
                clearNeedsHuman: deps.operatorClearNeedsHuman,
                sweep: deps.operatorSweep,
                pauses: createJanitorPauses(stores.documents),
                ...(deps.operatorDeliveries ? { deliveries: deps.operatorDeliveries } : {}),
                log: deps.log.child({ component: "dashboard" }),
              },
            }
          : {}),
        limiter,
        now,
      });
    },
    ready,
    observer: {
      route: (method, route) => metrics.http.route(method, route),
      refused: (code) => metrics.refusals.inc({ code }),
    },
  };
  // The heartbeat answers in front of Hono (no web Request per call), with the same limiter and checks.
  const heartbeat = createHeartbeatRoute({
    core: deps.core,
    auth: authOf(apiDeps),
    ...(options.trustProxyHops !== undefined ? { trustProxyHops: options.trustProxyHops } : {}),
    log: deps.log,
    onRefused: (code) => metrics.refusals.inc({ code }),
    observed: metrics.http.route("POST", heartbeatRoute),
  });
  return apiHandler(createApi(apiDeps), (path) => apiPaths.test(path) || dashboardPaths.test(path), [
    heartbeat,
  ]);
}

/** The dashboard's queue panels read what `GET …/queue` reads: the picker's view, nobody's assignment exempted. */
function queueReaderOf(picker: QueuePicker, store: Stores["queue"], now: () => number) {
  return createQueueReader({
    store,
    view: (installationId, repo, limit) => picker.view(installationId, repo, "", limit),
    now,
  });
}
