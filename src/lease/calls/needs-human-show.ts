// Shows a holder's ask for a person on GitHub, throttled per subject (docs/reference/github-surfaces.md#needs-human).

import type { Logger } from "pino";
import { type NeedsHumanChange, type NeedsHumanShown, planNeedsHuman } from "../../budget/needs-human.js";
import type { RepoConfig } from "../../config/repo-config.js";
import { type SubjectKey, subjectName } from "../../domain/claim.js";
import { asksForPerson } from "../../domain/stall.js";
import { needsHumanNotification } from "../../notify/notification-events.js";
import type { Notifier } from "../../notify/notifier.js";
import {
  type AssignmentProvider,
  subjectRefOf,
  type TransitionWrite,
} from "../../providers/assignment-provider.js";
import type { Stores } from "../../providers/stores.js";
import type { NeedsHumanRecord } from "../ports.js";
import { writeFenced } from "../transitions/commit-transition.js";
import { needsHumanAskBody, stallAskBody } from "./budget-writes.js";

/** A lease's subject and generation. */
type LeaseKey = SubjectKey & { generation: number };

export interface NeedsHumanShowDeps {
  stores: Pick<Stores, "documents">;
  assignments: AssignmentProvider;
  notifier?: Notifier | undefined;
  now: () => number;
  log: Logger;
}

/**
 * The label, the mention comment and the notification of needs-human, at most one label write per
 * minute and one comment and notification per `notify.needsHumanCooldown`, whatever the flag does.
 * What each subject's generation last showed is a store document (shared by replicas); a label
 * write the throttle held back is remembered here and made by the first heartbeat after it is due
 * (reconcile makes it otherwise).
 */
export class NeedsHumanShow {
  /** Held-back label writes: subject generation → when it may be written. */
  readonly #due = new Map<string, number>();

  constructor(private readonly deps: NeedsHumanShowDeps) {}

  /** After a heartbeat that changed the ask. */
  async changed(
    record: NeedsHumanRecord,
    config: RepoConfig,
    change: Exclude<NeedsHumanChange, { kind: "unchanged" }>,
  ): Promise<void> {
    const body = change.kind === "asked" ? needsHumanAskBody(record, config, change.blocker) : null;
    await this.#show(record, config, body, change.kind === "asked" ? change.blocker : null);
  }

  /**
   * The App asks a person on a stalled claim's behalf (`onStall: needs-human`): the label, one comment
   * and the `needs-human` notification, throttled like a holder's own ask.
   */
  async stallAsked(record: NeedsHumanRecord, config: RepoConfig, blocker: string): Promise<void> {
    await this.#show(record, config, stallAskBody(record, config, blocker), blocker);
  }

  /** A person took the label off: GitHub shows none, so nothing is written (the throttle's memory says so). */
  async removedByPerson(record: NeedsHumanRecord, config: RepoConfig): Promise<void> {
    const { stores, now } = this.deps;
    const document = documentOf(record);
    const stored = ((await stores.documents.getDocument(document)) ?? {}) as NeedsHumanShown;
    if (stored.label?.generation !== record.generation || !stored.label.shown) return;
    this.#due.delete(idOf(record));
    const shown: NeedsHumanShown = { ...stored, label: { ...stored.label, shown: false, at: now() } };
    await stores.documents.putDocument(document, shown, keepMsOf(config));
  }

  /** Whether a held-back label write of this generation is due (no I/O: every heartbeat asks). */
  isDue(lease: LeaseKey, now: number): boolean {
    if (this.#due.size === 0) return false;
    const due = this.#due.get(idOf(lease));
    return due !== undefined && due <= now;
  }

  /** Makes a held-back label write that is due: the label as the record asks now. */
  async settle(record: NeedsHumanRecord, config: RepoConfig): Promise<void> {
    await this.#show(record, config, null, null);
  }

  async #show(
    record: NeedsHumanRecord,
    config: RepoConfig,
    body: string | null,
    blocker: string | null,
  ): Promise<void> {
    const { deps } = this;
    const { stores, now: clock, log } = deps;
    const document = documentOf(record);
    const now = clock();
    const stored = ((await stores.documents.getDocument(document)) ?? {}) as NeedsHumanShown;
    // The comment and the notification are throttled per issue, across claims; the label's state is
    // one generation's (a new claim's write took an earlier ask's label off).
    const { label, ...perIssue } = stored;
    const shown: NeedsHumanShown =
      label?.generation === record.generation ? { ...perIssue, label } : perIssue;
    const plan = planNeedsHuman({
      desired: asksForPerson(record),
      body,
      shown,
      now,
      cooldownMs: config.notify.needsHumanCooldown,
    });
    if (plan.shown.label) plan.shown.label.generation = record.generation;
    const id = idOf(record);
    if (plan.labelDueAt !== null) this.#due.set(id, plan.labelDueAt);
    else this.#due.delete(id);
    const write: TransitionWrite = { subjectNodeId: record.issueNodeId ?? "" };
    if (plan.label === "add") write.addLabels = [config.labels.needsHuman];
    if (plan.label === "remove") write.removeLabels = [config.labels.needsHuman];
    if (plan.comment?.kind === "new") write.addComments = [plan.comment.body];
    if (plan.comment?.kind === "edit")
      write.editComments = [{ nodeId: plan.comment.nodeId, body: plan.comment.body }];
    const subject = subjectName(record.repo, record.issue);
    if (write.addLabels || write.removeLabels || write.addComments || write.editComments) {
      try {
        const applied = await writeFenced(deps, subjectRefOf(record), record, write, config.labels);
        const nodeId = applied.addedComments?.[0];
        if (plan.comment?.kind === "new" && nodeId && plan.shown.comment) plan.shown.comment.nodeId = nodeId;
      } catch (error) {
        // The flag stays in the store; the label is reconcile's to repair, the ask may be repeated.
        log.warn({ subject, err: error }, "needs-human not shown");
        return;
      }
    }
    await stores.documents.putDocument(document, plan.shown, keepMsOf(config));
    // The notifier queues without waiting, so a slow or dead sink never slows the heartbeat.
    if (plan.notify && blocker !== null) {
      deps.notifier?.emit(needsHumanNotification(record, blocker, record.lastHeartbeatAt, config));
    }
  }
}

/**
 * Another writer took the label off (the dashboard's "clear needs-human"): the throttle's document
 * says so, so the holder's next ask labels the subject again (after the label spacing).
 */
export async function noteNeedsHumanLabelRemoved(
  documents: Stores["documents"],
  lease: LeaseKey,
  config: RepoConfig,
  now: number,
): Promise<void> {
  const document = documentOf(lease);
  const stored = ((await documents.getDocument(document)) ?? {}) as NeedsHumanShown;
  const shown: NeedsHumanShown = {
    ...stored,
    label: { shown: false, at: now, generation: lease.generation },
  };
  await documents.putDocument(document, shown, keepMsOf(config));
}

/** How long what was shown is remembered: the cooldown's throttle needs it that long, the label's spacing a minute. */
function keepMsOf(config: RepoConfig): number {
  return Math.max(config.notify.needsHumanCooldown, 2 * 60_000);
}

/**
 * Whether this generation's ask put the needs-human label on and the write landed (the document is
 * written after it): what a forge that reports labels as they now are compares a delivery with.
 */
export async function needsHumanLabelShown(
  documents: Stores["documents"],
  lease: LeaseKey,
): Promise<boolean> {
  const stored = (await documents.getDocument(documentOf(lease))) as NeedsHumanShown | null;
  return stored?.label?.generation === lease.generation && stored.label.shown === true;
}

function idOf(record: LeaseKey): string {
  return `${record.installationId}:${record.repoId}:${record.issue}:${record.generation}`;
}

/** One document per issue: the throttle holds across claims (a release and a re-claim ask anew). */
function documentOf(record: LeaseKey): string {
  return `needs-human:${record.installationId}:${record.repoId}:${record.issue}`;
}
