// The retry runner handed to the throttling plugin: runs each request at once, retries as the plugin's listener says, and gives a GraphQL read a state without the write limiter.
import { describe, expect, it } from "vitest";
import { createReadAwareRetryLimiter } from "../src/providers/github/read-aware-retry-limiter.js";

const noop = async () => undefined;
const writeLimiter = {
  key: () => ({
    schedule: (_jobOptions: object, _job: typeof noop) => Promise.reject(new Error("waited for writes")),
  }),
};
const state = { id: "42", write: writeLimiter };
const request = Object.assign(() => undefined, { retryCount: 0 });
const read = { method: "POST", url: "/graphql", query: "query Q { viewer { login } }" };
const mutation = { method: "POST", url: "/graphql", query: "mutation M { x }" };

/** A job failing `failures` times before it answers, recording the state it was run with. */
function flakyJob(failures: number) {
  const runs: unknown[] = [];
  const job = async (jobState: unknown) => {
    runs.push(jobState);
    if (runs.length <= failures) throw Object.assign(new Error(`failure ${runs.length}`), { status: 403 });
    return "answer";
  };
  return { job, runs };
}

describe("createReadAwareRetryLimiter", () => {
  it("hands a GraphQL read a state whose write limiter lets it through, and a mutation the state as given", async () => {
    const limiter = createReadAwareRetryLimiter();
    const seen: unknown[] = [];
    const job = async (jobState: { write: typeof writeLimiter }) => {
      seen.push(jobState);
      // What the plugin does before a write: wait on the write limiter with a no-op job.
      await jobState.write.key().schedule({}, noop);
      return "sent";
    };
    await expect(limiter.schedule(job as never, state, request, read)).resolves.toBe("sent");
    await expect(limiter.schedule(job as never, state, request, mutation)).rejects.toThrow(
      "waited for writes",
    );
    expect(seen[0]).toMatchObject({ id: "42" });
    expect(seen[0]).not.toBe(state);
    expect(seen[1]).toBe(state);
  });

  it("retries after the delay the listener answers, with the same arguments, as often as it answers", async () => {
    const limiter = createReadAwareRetryLimiter();
    const infos: unknown[] = [];
    limiter.on("failed", (_error, info) => {
      infos.push(info.retryCount);
      return info.retryCount < 2 ? 0 : undefined;
    });
    const { job, runs } = flakyJob(2);
    await expect(limiter.schedule(job as never, state, request, mutation)).resolves.toBe("answer");
    expect(runs).toEqual([state, state, state]);
    expect(infos).toEqual([0, 1]);
  });

  it("gives up with the request's own error when no listener answers, or the listener throws", async () => {
    const silent = createReadAwareRetryLimiter();
    silent.on("failed", () => undefined);
    await expect(silent.schedule(flakyJob(1).job as never, state, request, read)).rejects.toThrow(
      "failure 1",
    );

    const throwing = createReadAwareRetryLimiter();
    throwing.on("failed", () => {
      throw new Error("listener broke");
    });
    await expect(throwing.schedule(flakyJob(1).job as never, state, request, read)).rejects.toThrow(
      "failure 1",
    );
  });
});
