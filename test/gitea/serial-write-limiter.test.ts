// serialWriteLimiter: one write at a time per Gitea instance, spaced, a failure not blocking the queue.
import { describe, expect, it } from "vitest";
import { serialWriteLimiter } from "../../src/providers/gitea/serial-write-limiter.js";

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("serialWriteLimiter", () => {
  it("starts a write only after the one before has finished and the spacing has passed", async () => {
    let now = 1000;
    const sleeps: number[] = [];
    const limiter = serialWriteLimiter({
      spacingMs: 250,
      now: () => now,
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
      },
    });
    const events: string[] = [];
    const first = deferred();
    const a = limiter.run(async () => {
      events.push("a start");
      await first.promise;
      events.push("a end");
    });
    const b = limiter.run(async () => {
      events.push("b start");
    });
    await flush();
    expect(events).toEqual(["a start"]);
    now += 100;
    first.resolve();
    await Promise.all([a, b]);
    expect(events).toEqual(["a start", "a end", "b start"]);
    expect(sleeps).toEqual([250]);
  });

  it("a failed write rejects its caller only; the next still runs", async () => {
    const limiter = serialWriteLimiter({ spacingMs: 0 });
    const failed = limiter.run(async () => {
      throw new Error("Gitea answered 500");
    });
    const next = limiter.run(async () => "ran");
    await expect(failed).rejects.toThrow("Gitea answered 500");
    await expect(next).resolves.toBe("ran");
  });

  it("no spacing once the spacing has passed by itself", async () => {
    let now = 0;
    const sleeps: number[] = [];
    const limiter = serialWriteLimiter({
      spacingMs: 50,
      now: () => now,
      sleep: async (ms) => void sleeps.push(ms),
    });
    await limiter.run(async () => undefined);
    now += 60;
    await limiter.run(async () => undefined);
    expect(sleeps).toEqual([]);
  });
});
