// `GET /api/v1/leases/{id}/events` (docs/reference/http-api.md#get-apiv1leasesidevents--live-lease-events): the lease's live events as Server-Sent Events.
import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { Logger } from "pino";
import { type LeaseEvent, terminalLeaseEvents } from "../../contract/lease-events.js";
import { leaseIdOf, parseLeaseId } from "../../domain/claim.js";
import type { LeaseCore } from "../../lease/lease-core.js";
import type { LeaseEventBus } from "../../providers/lease-event-bus.js";
import type { ApiEnv } from "../api-env.js";
import { type AuthDeps, asLease } from "../auth.js";
import type { LeaseStreams } from "../lease-streams.js";
import { UserError } from "../user-error.js";

export const leaseEventsRoute = "/api/v1/leases/:leaseId/events";

export interface LeaseEventRouteDeps {
  core: LeaseCore;
  auth: Pick<AuthDeps, "limiter" | "leaseOnRecord">;
  bus: LeaseEventBus;
  streams: LeaseStreams;
  log: Logger;
  /** A comment line this often keeps proxies from closing an idle stream (default 15 s). */
  pingMs?: number;
  /** Events a stream may have unwritten before its client counts as too slow and is cut (default 16). */
  maxPending?: number;
  /** How long the first event waits for this replica to hear published events (default 2 s). */
  listenWaitMs?: number;
}

export function mountLeaseEventRoute(app: Hono<ApiEnv>, deps: LeaseEventRouteDeps): void {
  const { core, auth, bus, streams } = deps;
  const maxPending = deps.maxPending ?? 16;
  app.get(leaseEventsRoute, async (c) => {
    // One spelling per lease (a variant such as leading zeros verifies the same lease): the stream
    // is keyed and subscribed under the id events are published with.
    const asked = c.req.param("leaseId");
    const parsed = parseLeaseId(asked);
    const leaseId = parsed ? leaseIdOf(parsed, parsed.generation) : asked;
    if (!streams.hasRoom(leaseId)) {
      throw new UserError(
        503,
        "too_many_streams",
        "This server holds as many live lease streams as it allows; retry in 30 s or rely on heartbeats.",
        { retryAfterSeconds: 30 },
      );
    }
    // Heard from before the state is read, so nothing published between the read and the first event is lost.
    const early: LeaseEvent[] = [];
    let deliver = (event: LeaseEvent) => void early.push(event);
    const unsubscribe = bus.subscribe(leaseId, (event) => deliver(event));
    let state: Awaited<ReturnType<LeaseCore["verify"]>>;
    try {
      await heardWithin(bus.listening(), deps.listenWaitMs ?? 2_000);
      // The token alone: the holder's `write` is re-checked by its heartbeats, not at every reconnect.
      state = await asLease(c, auth, (token) => core.verify(leaseId, token, { recheckWrite: false }));
    } catch (error) {
      unsubscribe();
      throw error;
    }
    return streamSSE(c, async (stream) => {
      let ended = false;
      let finished = () => {};
      const done = new Promise<void>((resolve) => {
        finished = resolve;
      });
      let forget = () => {};
      let ping: NodeJS.Timeout | undefined;
      const end = () => {
        if (ended) return;
        ended = true;
        unsubscribe();
        forget();
        clearInterval(ping);
        finished();
      };
      // Written one after another; a client that lets them pile up is cut (it recovers by reconnecting).
      let pending = 0;
      let chain = Promise.resolve();
      const send = (name: string, data: unknown) => {
        if (ended) return chain;
        if (pending >= maxPending) {
          deps.log.warn({ leaseId }, "live lease stream cut: its client reads too slowly");
          end();
          return chain;
        }
        pending++;
        chain = chain
          .then(() => stream.writeSSE({ event: name, data: JSON.stringify(data) }))
          .finally(() => {
            pending--;
          });
        return chain;
      };
      forget = streams.open(leaseId, end);
      stream.onAbort(end);
      void send("state", { leaseId, ...state });
      deliver = (event) => {
        const written = send(event.event, { leaseId, ...event.data });
        if (terminalLeaseEvents.includes(event.event)) void written.then(end, end);
      };
      for (const event of early.splice(0)) deliver(event);
      ping = setInterval(() => {
        if (pending === 0 && !ended) void stream.write(": ping\n\n");
      }, deps.pingMs ?? 15_000);
      ping.unref();
      await done;
      await chain.catch(() => undefined);
    });
  });
}

/** Waits for the bus to be listening, but no longer than `ms`: a slow subscription only costs live events, which the lease view recovers. */
async function heardWithin(listening: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    listening.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}
