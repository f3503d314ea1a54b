// Lets GraphQL reads past the throttling plugin's write limiter, which it applies to every `POST /graphql`.
import Bottleneck from "bottleneck";
import { isGraphQLReadRequest, type RequestOptionsLike } from "./is-graphql-read.js";

/** The write limiter as a read sees it: the plugin's wait on it (`schedule(jobOptions, noop)`) ends at once. */
const noWriteLimiter = {
  key: () => ({ schedule: (_jobOptions: unknown, job: () => Promise<unknown>) => job() }),
};

type Schedule = (...args: unknown[]) => Promise<unknown>;

/**
 * A fresh `throttle.retryLimiter` for one Octokit. `@octokit/plugin-throttling` (11.x) runs every
 * request as `retryLimiter.schedule(doRequest, state, request, options)`, and `doRequest` waits on
 * `state.write` (one a second, one at a time, per installation) for every POST, `/graphql` included,
 * though GitHub asks that spacing of mutations and REST writes only. A GraphQL read is handed a copy
 * of the state whose write limiter lets it straight through; it still waits on the global limiter,
 * and the plugin's rate-limit retries re-run the same job with the same copy. Everything else is
 * passed on untouched. One per Octokit, like the plugin's own: the plugin adds its retry listener to it.
 */
export function createReadAwareRetryLimiter(): Bottleneck {
  const limiter = new Bottleneck();
  const schedule = limiter.schedule.bind(limiter) as Schedule;
  const readAware: Schedule = (...args) => {
    const [job, state, request, options] = args;
    if (
      typeof job !== "function" ||
      typeof state !== "object" ||
      state === null ||
      !isGraphQLReadRequest((options ?? {}) as RequestOptionsLike)
    ) {
      return schedule(...args);
    }
    return schedule(job, { ...state, write: noWriteLimiter }, request, options, ...args.slice(4));
  };
  limiter.schedule = readAware as Bottleneck["schedule"];
  return limiter;
}
