// The GitHub side of the App: installation Octokits and the providers built on them, each request counted.
import type { Logger } from "pino";
import type { Probot } from "probot";
import { createMarkerSeal } from "../domain/marker-seal.js";
import type { ClaimHoldMetrics } from "../metrics/create-metrics.js";
import { GitHubAssignmentProvider } from "../providers/github/github-assignment-provider.js";
import { GitHubCandidateSource } from "../providers/github/github-candidate-source.js";
import { GitHubChecksProvider } from "../providers/github/github-checks-provider.js";
import { GitHubCommentReactions } from "../providers/github/github-comment-reactions.js";
import { GitHubIdentityProvider } from "../providers/github/github-identity-provider.js";
import { GitHubInstallationSource } from "../providers/github/github-installation-source.js";
import { installationOctokits } from "../providers/github/installation-octokit.js";
import type { RequestMeter } from "../request-meter.js";
import type { ClaimHoldOptions } from "./claim-hold-options.js";

export type GitHubProviders = ReturnType<typeof createGitHubProviders>;

export function createGitHubProviders(
  probot: Probot,
  options: Pick<
    ClaimHoldOptions,
    "githubBaseUrl" | "appId" | "tokenSecret" | "previousTokenSecret" | "coalesceWrites"
  >,
  deps: { metrics: ClaimHoldMetrics; meter: RequestMeter; now: () => number; log: Logger },
) {
  const { metrics, meter, log } = deps;
  const octokitFor = installationOctokits(
    (installationId) => probot.auth(installationId),
    (remaining) => metrics.rateLimitRemaining.set(remaining),
    (limit) => metrics.rateLimitLimit.set(limit),
  );
  const onRequest = (kind: string) => meter.count(kind);
  return {
    identity: new GitHubIdentityProvider({
      baseUrl: options.githubBaseUrl,
      appOctokit: () => probot.auth(),
      octokitFor,
      now: deps.now,
      onRequest,
    }),
    assignments: new GitHubAssignmentProvider({
      octokitFor,
      onRequest,
      onQueuedWrites: (queued) => metrics.githubWritesQueued.set(queued),
      coalesceWrites: options.coalesceWrites ?? false,
      seal: createMarkerSeal(options.tokenSecret, options.previousTokenSecret),
      onMarkerRejected: (reason) => {
        metrics.markersRejected.inc();
        log.warn({ reason }, "ignored a claim marker that is not the App's own");
      },
    }),
    checks: new GitHubChecksProvider({
      octokitFor,
      ...(options.appId ? { appId: options.appId } : {}),
      onRequest,
    }),
    installations: new GitHubInstallationSource({ appOctokit: () => probot.auth(), onRequest }),
    reactions: new GitHubCommentReactions({ octokitFor }),
    candidates: new GitHubCandidateSource({ octokitFor, onRequest }),
  };
}
