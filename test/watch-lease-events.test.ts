// The agent's watcher of a lease's live events: which final event is a loss (stop the work) and which is the session's own release (nothing lost).
import { describe, expect, it } from "vitest";
import { watchLeaseEvents } from "../src/agent/actions/watch-lease-events.js";
import type { LeaseEvent } from "../src/agent/client/index.js";

const state: LeaseEvent = { event: "state", data: { leaseId: "1.7.12.3", holder: true } };

/** Watches a stream that sends `events` and then ends (the server ends it after a final event). */
async function watch(events: LeaseEvent[]) {
  const heard: string[] = [];
  let connects = 0;
  const end = await watchLeaseEvents({
    client: {
      async leaseEvents() {
        connects++;
        return (async function* () {
          yield* events;
        })();
      },
    },
    lease: async () => ({ id: "1.7.12.3", token: "clh_test" }),
    signal: new AbortController().signal,
    sleep: async () => {
      throw new Error("reconnected: the watcher should have stopped at the final event");
    },
    onEvent: (event) => heard.push(event.event),
  });
  return { end, heard, connects };
}

describe("watchLeaseEvents", () => {
  it.each<[string, LeaseEvent, string | null]>([
    ["superseded is a loss", { event: "superseded", data: { generation: 4 } }, "superseded"],
    ["revoked is a loss", { event: "revoked", data: { reason: "reaped" } }, "gone"],
    [
      "released is the session's own release: nothing lost",
      { event: "released", data: { outcome: "completed" } },
      null,
    ],
  ])("%s", async (_name, final, kind) => {
    const { end, heard, connects } = await watch([state, final]);
    expect(end?.kind ?? null).toBe(kind);
    expect(heard).toEqual(["state"]);
    expect(connects).toBe(1);
  });
});
