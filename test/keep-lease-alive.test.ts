// The heartbeat loop after a re-claim rotated the lease token: it follows this session's new token, never a stranger's.
import { describe, expect, it } from "vitest";
import { keepLeaseAlive, rotationSettleMs } from "../src/agent/actions/keep-lease-alive.js";
import type { LeaseFile } from "../src/agent/actions/lease-store.js";
import { type ClaimHoldClient, ClaimHoldError } from "../src/agent/client/index.js";

const oldToken = `clh_${"o".repeat(43)}`;
const newToken = `clh_${"n".repeat(43)}`;

function leaseWith(token: string): LeaseFile {
  return {
    version: 1,
    baseUrl: "http://claim-hold.test",
    repo: "octo/widgets",
    issue: 12,
    leaseId: "1.42.12.1",
    token,
    generation: 1,
    taskClass: "author",
    branch: "agent/s/12-x",
    ttlSeconds: 30,
    heartbeatIntervalSeconds: 1,
    expiresAt: "2099-01-01T00:00:00.000Z",
    claimedAt: "2026-01-01T00:00:00.000Z",
    sessionId: "s",
    status: "held",
  };
}

const rotatedOut = () =>
  new ClaimHoldError({
    status: 409,
    code: "superseded",
    message: "This lease token was replaced by a re-claim",
    details: { generation: 1, reason: "rotated" },
  });

/** A loop whose lease file and heartbeat answers the test scripts; it stops after `beats` accepted beats. */
function loop(options: { file: () => LeaseFile; onSleep?: (ms: number) => void; beats: number }) {
  const stop = new AbortController();
  const sent: string[] = [];
  const slept: number[] = [];
  const client = {
    async heartbeat(lease: { token: string }) {
      sent.push(lease.token);
      if (lease.token === oldToken) throw rotatedOut();
      if (sent.filter((t) => t === newToken).length >= options.beats) stop.abort("done");
      return { generation: 1, expiresAt: "2099-01-01T00:00:00.000Z", state: "active" };
    },
  } as unknown as ClaimHoldClient;
  const end = keepLeaseAlive({
    client,
    load: async () => options.file(),
    intervalMs: 1000,
    now: () => 0,
    sleep: async (ms) => {
      slept.push(ms);
      options.onSleep?.(ms);
      if (stop.signal.aborted) throw new Error("aborted");
    },
    signal: stop.signal,
    expiresAtMs: 30_000,
    toEpochMs: () => 30_000,
  });
  return { end, sent, slept };
}

describe("keepLeaseAlive after a token rotation", () => {
  it("goes on with the token this session's re-claim stores a moment after the rotation", async () => {
    let file = leaseWith(oldToken);
    const run = loop({
      file: () => file,
      onSleep: (ms) => {
        if (ms === rotationSettleMs) file = leaseWith(newToken);
      },
      beats: 2,
    });
    expect(await run.end).toEqual({ kind: "stopped" });
    expect(run.sent).toEqual([oldToken, newToken, newToken]);
    expect(run.slept).toEqual([rotationSettleMs, 1000, 1000]);
  });

  it("answers superseded when the lease file keeps the rotated-out token (someone else re-claimed)", async () => {
    const run = loop({ file: () => leaseWith(oldToken), beats: 1 });
    const end = await run.end;
    expect(end).toMatchObject({ kind: "superseded", error: { code: "superseded" } });
    expect(run.sent).toEqual([oldToken]);
    expect(run.slept).toEqual([rotationSettleMs]);
  });
});
