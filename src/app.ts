// Wires claim-hold into a Probot app: providers, lease core, HTTP API and webhook handlers.

import type { Logger } from "pino";
import type { ApplicationFunction, Probot } from "probot";
import { createRepoConfigSource } from "./config/repo-config-source.js";
import type { ClaimRecord, SubjectKey } from "./domain/claim.js";
import { apiHandler, createApi } from "./handlers/api.js";
import { mountAttestRoute } from "./handlers/attest.js";
import { createFailedAuthLimiter } from "./handlers/failed-auth-limiter.js";
import { prepareRepositories } from "./handlers/installation.js";
import {
  handlePullRequest,
  handleRerequest,
  pullRequestCheckEvents,
} from "./handlers/pull-request-checks.js";
import { handleReclaim } from "./handlers/reclaim.js";
import { registerSyncHandlers } from "./handlers/register-sync.js";
import { Janitor } from "./janitor/janitor.js";
import { JobRegistry } from "./janitor/job-registry.js";
import { LeaseCore } from "./lease/lease-core.js";
import { MergeFence } from "./lease/merge-fence.js";
import { createTokenMinter } from "./lease/tokens.js";
import type { FenceStore } from "./providers/fence-store.js";
import { GitHubAssignmentProvider } from "./providers/github/github-assignment-provider.js";
import { GitHubChecksProvider } from "./providers/github/github-checks-provider.js";
import { GitHubCommentReactions } from "./providers/github/github-comment-reactions.js";
import { GitHubIdentityProvider } from "./providers/github/github-identity-provider.js";
import type { LivenessStore } from "./providers/liveness-store.js";
import { MemoryFenceStore } from "./providers/memory-fence-store.js";
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
  /** REST base URL of GitHub (or GHE / the simulator), for calls made with the agent's own token. */
  githubBaseUrl: string;
  log: Logger;
  now?: () => number;
  adminToken?: string;
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
}

const apiPaths = /^\/(api\/v1\/|healthz$|readyz$)/;

export function createClaimHoldApp(options: ClaimHoldOptions): ApplicationFunction {
  return (app: Probot, { addHandler }) => {
    const now = options.now ?? Date.now;
    const { store, log } = options;
    const octokitFor = (installationId: number) => app.auth(installationId);
    const meter = new RequestMeter();
    const onRequest = (kind: string) => meter.count(kind);
    const identity = new GitHubIdentityProvider({
      baseUrl: options.githubBaseUrl,
      appOctokit: () => app.auth(),
      octokitFor,
      now,
      onRequest,
    });
    const assignments = new GitHubAssignmentProvider({ octokitFor, onRequest });
    const configs = createRepoConfigSource(identity, log);
    /** Features that react when a subject changes hands (the check run re-evaluates linked PRs). */
    const subjectListeners: ((key: SubjectKey, record: ClaimRecord) => Promise<void>)[] = [];
    const core = new LeaseCore({
      store,
      assignments,
      configs,
      tokens: createTokenMinter(options.tokenSecret),
      now,
      log,
      subjectChanged: (key, record) => subjectChanged(key, record),
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
      installations: () => store.installations(),
      appInstallations: async () => {
        const octokit = await app.auth();
        meter.count("list-installations");
        const response = await octokit.request("GET /app/installations", { per_page: 100 });
        return (response.data as { id: number }[]).map((i) => i.id);
      },
      measure: (work) => meter.measure(work),
      subjectChanged,
    });
    const jobs = new JobRegistry({ store, log, now, disabled: options.disabledJobs ?? [] });
    let sweeps = 0;
    jobs.register({
      name: "janitor",
      intervalMs: (options.janitorIntervalSeconds ?? 300) * 1000,
      run: async () => {
        sweeps++;
        await janitor.sweep({ reconcile: sweeps % (options.reconcileEvery ?? 12) === 0 });
      },
    });
    jobs.start();
    options.onReady?.({ core, fence, janitor, jobs, meter });
    const limiter = createFailedAuthLimiter({ now });
    const api = createApi({
      core,
      janitor,
      ...(options.adminToken ? { adminToken: options.adminToken } : {}),
      identity,
      limiter,
      log,
      extend: (api) => mountAttestRoute(api, { fence, limiter }),
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
    addHandler(apiHandler(api, (path) => apiPaths.test(path)));

    registerSyncHandlers(app, {
      store,
      assignments,
      configs,
      now,
      log,
      subjectChanged,
    });

    app.on([...pullRequestCheckEvents], (context) => handlePullRequest(context.payload, fence));
    app.on(["check_run.rerequested", "check_suite.rerequested"], (context) =>
      handleRerequest(context.payload, fence),
    );
    const reactions = new GitHubCommentReactions({ octokitFor });
    app.on("issue_comment.created", (context) =>
      handleReclaim(
        { id: context.id, payload: context.payload },
        { store, fences, fence, assignments, identity, configs, reactions, now, log },
      ),
    );

    app.on(["installation.created", "installation_repositories.added"], async (context) => {
      const payload = context.payload;
      const repositories =
        "repositories_added" in payload ? payload.repositories_added : (payload.repositories ?? []);
      await prepareRepositories(
        { installationId: payload.installation.id, repositories },
        { assignments, configs, log: context.log },
      );
    });
  };
}
