// serialWriteLimiter: one write at a time per Gitea instance, spaced, a failure not blocking the queue; the client sends only writes through it.
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { GiteaClient } from "../../src/providers/gitea/gitea-client.js";
import { serialWriteLimiter, type WriteLimiter } from "../../src/providers/gitea/serial-write-limiter.js";
import { giteaBotToken, giteaUrl, nockGetIssue, nockSetAssignees } from "../support/gitea-fake.js";

afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

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

describe("GiteaClient with a write limiter", () => {
  it("sends writes through the limiter and reads around it", async () => {
    const routed: number[] = [];
    const limiter: WriteLimiter = {
      run: (call) => {
        routed.push(1);
        return call();
      },
    };
    const client = new GiteaClient({ baseUrl: giteaUrl, token: giteaBotToken, writeLimiter: limiter });
    nockGetIssue([], 12, { assignees: [], labels: [] });
    nockSetAssignees([], 12, ["fleet-bot"]);
    await client.getIssue("octo", "widgets", 12);
    expect(routed).toEqual([]);
    await client.setAssignees("octo", "widgets", 12, ["fleet-bot"]);
    expect(routed).toEqual([1]);
  });
});
