// Installation Octokits from the Probot app, each reporting GitHub's remaining rate limit as answers arrive.
import type { Probot } from "probot";

type AppOctokit = Awaited<ReturnType<Probot["auth"]>>;

/**
 * The Octokit for an installation, reporting GitHub's last `x-ratelimit-remaining` to
 * `onRateLimitRemaining` and `x-ratelimit-limit` to `onRateLimitLimit` (answers and errors alike).
 */
export function installationOctokits(
  auth: (installationId: number) => Promise<AppOctokit>,
  onRateLimitRemaining: (remaining: number) => void,
  onRateLimitLimit: (limit: number) => void = () => undefined,
): (installationId: number) => Promise<AppOctokit> {
  return async (installationId) => {
    const octokit = await auth(installationId);
    const record = (headers: Record<string, unknown> | undefined) => {
      const remaining = Number(headers?.["x-ratelimit-remaining"]);
      if (Number.isFinite(remaining)) onRateLimitRemaining(remaining);
      const limit = Number(headers?.["x-ratelimit-limit"]);
      if (Number.isFinite(limit) && limit > 0) onRateLimitLimit(limit);
    };
    octokit.hook.after("request", (response: { headers?: Record<string, unknown> }) =>
      record(response.headers),
    );
    octokit.hook.error("request", (error) => {
      record((error as { response?: { headers?: Record<string, unknown> } }).response?.headers);
      throw error;
    });
    return octokit;
  };
}
