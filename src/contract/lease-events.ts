// The live lease events (docs/reference/http-api.md#get-apiv1leasesidevents--live-lease-events): names and payloads, shared by the App and the agent.
import { z } from "zod";

/** Every event a lease's stream sends; `state` is always the first (the lease as `GET` it answers). */
export const leaseEventNames = [
  "state",
  "superseded",
  "takeover_pending",
  "revoked",
  "needs_human_answered",
  "budget_raised",
  "stalled",
  "released",
] as const;
export type LeaseEventName = (typeof leaseEventNames)[number];

/** After these the lease has ended and so does the stream; after all but `released` its holder lost it and must stop working. */
export const terminalLeaseEvents: readonly LeaseEventName[] = ["superseded", "revoked", "released"];

/** One event of a lease: its name and its JSON payload (see the reference for each payload's fields). */
export const LeaseEventSchema = z.strictObject({
  event: z.enum(leaseEventNames),
  data: z.record(z.string(), z.unknown()),
});
export type LeaseEvent = z.infer<typeof LeaseEventSchema>;

/** An event on its way between replicas: the lease it is for, and the event. */
export const LeaseEventMessageSchema = z.strictObject({
  leaseId: z.string().min(1).max(64),
  event: LeaseEventSchema,
});
export type LeaseEventMessage = z.infer<typeof LeaseEventMessageSchema>;
