// The notification port (docs/deploy.md#9-notifications): what the lease core, the janitor and the handlers call to tell a person something.
import type { NotifyEvent } from "../config/repo-config.js";
import type { Notification } from "../providers/outbox-store.js";

export type { Notification };

export interface NotificationInput {
  event: NotifyEvent;
  installationId: number;
  subject: string | null;
  data: Record<string, unknown>;
  /** The repository's `notify.events`: an event it leaves out is not sent. Absent: no repository filter. */
  repoEvents?: readonly NotifyEvent[];
  /**
   * Names this occurrence (e.g. `takeover:42:7:1:2`): emitting the same key again — another replica,
   * a redelivered webhook — queues nothing more. Absent: every emit is an event of its own.
   */
  key?: string;
}

export interface Notifier {
  /**
   * Queues `input` for every sink subscribed to its event. Returns at once: it never waits for the
   * outbox, let alone a sink; a failure to queue is logged and counted, never thrown.
   */
  emit(input: NotificationInput): void;
}

/** The notifier that sends nothing (no sink configured, or a test that does not look). */
export const silentNotifier: Notifier = { emit: () => undefined };
