// What the App is given (store, secrets, schedule, limits) and what it hands back once wired.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { GiteaConfig } from "../config/gitea-config.js";
import type { NotifySink } from "../config/notify-sinks.js";
import type { MergeFence } from "../fence/merge-fence.js";
import type { Janitor } from "../janitor/janitor.js";
import type { JobRegistry } from "../janitor/job-registry.js";
import type { LeaseCore } from "../lease/lease-core.js";
import type { ClaimHoldMetrics } from "../metrics/create-metrics.js";
import type { NotificationSender, SenderPolicy } from "../notify/notification-sender.js";
import type { OutboxNotifier } from "../notify/outbox-notifier.js";
import type { FenceStore } from "../providers/fence-store.js";
import type { LeaseEventBus } from "../providers/lease-event-bus.js";
import type { OutboxStore } from "../providers/outbox-store.js";
import type { RateLimitStore } from "../providers/rate-limits.js";
import type { Stores } from "../providers/stores.js";
import type { RequestMeter } from "../request-meter.js";

export interface ClaimHoldOptions {
  /** The store bundle (`createRedisStores`, `createMemoryStores`). */
  stores: Stores;
  /** Attestations and the PR/branch indexes of the merge fence (default: in memory, like the store's default). */
  fences?: FenceStore;
  /** The App's id: the check-run list is filtered to the App's own `claim-hold` runs. */
  appId?: number;
  /** Public base URL of this App (the check run's details link; where the App's own Gitea hooks point). */
  publicUrl?: string;
  tokenSecret: string;
  /** Longest wait for another write on the same subject before writing anyway (default 8 s). */
  writeFenceWaitMs?: number;
  /**
   * Concurrent transitions of one installation share a mutation request: a write waits for the
   * installation's mutation in flight. Free only where writes are serial anyway (the production
   * client's write limiter, one at a time per installation), so on there (main.ts) and off by default.
   */
  coalesceWrites?: boolean;
  /**
   * The secret being rotated out: markers it signed still verify
   * (docs/security.md#rotating-claim_hold_token_secret).
   */
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
  /**
   * Where the read and failed-auth limits count (`createRedisRateLimits` on the store's Redis for one
   * count across replicas; default: in memory, like the store's default).
   */
  limits?: RateLimitStore;
  /** Whether real App credentials are loaded (readiness). */
  credentialsLoaded?: boolean;
  /** Janitor schedule: seconds between sweeps, and every how many sweeps a reconcile runs. */
  janitorIntervalSeconds?: number;
  reconcileEvery?: number;
  /** Scheduled jobs left off (tests drive the janitor through its route or directly). */
  disabledJobs?: string[];
  sleep?: (ms: number) => Promise<void>;
  /**
   * Where notifications go (`CLAIM_HOLD_NOTIFY`, docs/deploy.md#sinks-claim_hold_notify); absent or empty:
   * none is queued.
   */
  notifySinks?: NotifySink[];
  /**
   * Live lease events between replicas (`RedisLeaseEventBus` on the store's Redis; default: in this
   * process only, like the memory store). The caller closes it after `stop()`.
   */
  leaseEvents?: LeaseEventBus;
  /** Open live lease streams: at most this many in this process (default 1000). */
  maxLeaseStreams?: number;
  /** The notification outbox (default: in memory, like the store's default). */
  outbox?: OutboxStore;
  /** The notification sender's timing and tries (default `defaultSenderPolicy`). */
  notifySender?: Partial<SenderPolicy>;
  /**
   * A Gitea or Forgejo instance (`GITEA_URL`, `GITEA_TOKEN`, optionally `GITEA_WEBHOOK_SECRET`), or
   * several (`GITEA_URL_<N>` …, numbers and webhook secrets distinct: src/config/gitea-config.ts): the
   * webhook route `/api/gitea/webhooks` is served for all, and with `publicUrl` the App keeps its own
   * hook on each repository (`src/wiring/gitea-webhook-registration.ts`); absent: that route does not exist.
   */
  gitea?: GiteaConfig | readonly [GiteaConfig, ...GiteaConfig[]];
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
  /** Queues notifications (the lease core, the janitor and the merge fence have it too); `flush()` awaits the queued ones. */
  notifier: OutboxNotifier;
  /** This replica's notification sender (`tick()` runs one round at once). */
  sender: NotificationSender;
  outbox: OutboxStore;
  /** Resolves when the work started after answers so far (the merge fence's re-checks) has finished. */
  settled: () => Promise<void>;
  /** Ends the open live lease streams; call before closing the HTTP server (an open stream keeps it from closing). */
  closeStreams: () => void;
  /** Ends everything the App scheduled (its jobs, the claims gauge's refresh); call before closing the store. */
  stop: () => Promise<void>;
}

/** One of the App's HTTP handlers: answers the request and resolves true, or resolves false for the next. */
export type AppRequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
