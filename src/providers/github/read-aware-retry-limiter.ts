// The throttling plugin's retry runner, in its place: GraphQL reads skip the write limiter, and no request pays Bottleneck's timer hops just to be retryable.
import { isGraphQLReadRequest, type RequestOptionsLike } from "./is-graphql-read.js";

/** The write limiter as a read sees it: the plugin's wait on it (`schedule(jobOptions, noop)`) ends at once. */
const noWriteLimiter = {
  key: () => ({ schedule: (_jobOptions: unknown, job: () => Promise<unknown>) => job() }),
};

type Job = (...args: unknown[]) => Promise<unknown>;
/** The plugin's "failed" listener: a delay in ms to retry after, or nothing to give up. */
type FailedListener = (error: unknown, info: { args: unknown[]; retryCount: number }) => unknown;

/** What `@octokit/plugin-throttling` uses of its `retryLimiter` (a limit-free Bottleneck of its own otherwise). */
export interface RetryLimiter {
  on(event: string, listener: FailedListener): void;
  schedule(job: Job, ...args: unknown[]): Promise<unknown>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A fresh `throttle.retryLimiter` for one Octokit. `@octokit/plugin-throttling` (11.x) runs every
 * request as `retryLimiter.schedule(doRequest, state, request, options)`, retries it after the delay
 * its "failed" listener returns, and inside `doRequest` waits on `state.write` (one a second, one at
 * a time, per installation) for every POST, `/graphql` included, though GitHub asks that spacing of
 * mutations and REST writes only. Here a GraphQL read runs with a copy of the state whose write
 * limiter lets it straight through (it still waits on the global limiter, and its retries keep the
 * copy); everything else runs as given. The plugin's default is a Bottleneck without limits, whose
 * every job costs a few zero-delay timers (about 4 ms a request); this runs the job at once.
 * One per Octokit, like the plugin's own: the plugin adds its listener to it.
 */
export function createReadAwareRetryLimiter(): RetryLimiter {
  const failedListeners: FailedListener[] = [];
  const retryDelay = async (error: unknown, info: { args: unknown[]; retryCount: number }) => {
    // As Bottleneck: every listener is asked, a listener that throws counts as no answer, the first answer wins.
    const answers = await Promise.all(
      failedListeners.map(async (listener) => {
        try {
          return await listener(error, info);
        } catch {
          return undefined;
        }
      }),
    );
    const delay = answers.find((answer) => answer != null);
    return delay == null ? undefined : ~~(delay as number);
  };
  return {
    on(event, listener) {
      if (event === "failed") failedListeners.push(listener);
    },
    async schedule(job, ...args) {
      const [state, request, options, ...rest] = args;
      const read =
        typeof state === "object" &&
        state !== null &&
        isGraphQLReadRequest((options ?? {}) as RequestOptionsLike);
      const jobArgs = read ? [{ ...state, write: noWriteLimiter }, request, options, ...rest] : args;
      for (let retryCount = 0; ; retryCount++) {
        try {
          return await job(...jobArgs);
        } catch (error) {
          const delay = await retryDelay(error, { args: jobArgs, retryCount });
          if (delay === undefined) throw error;
          await sleep(delay);
        }
      }
    },
  };
}
