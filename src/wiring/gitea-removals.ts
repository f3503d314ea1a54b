// Gitea's label and assignee deliveries (`issues` label_updated, label_cleared, unassigned): the removal a person made, from what the App showed, through GitHub's removal handlers.
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { RepoConfigSource } from "../config/config-source.js";
import type { ClaimRecord, SubjectKey } from "../domain/claim.js";
import { logFleetIgnored } from "../handlers/fleet-ignored.js";
import { needsHumanAnswered } from "../handlers/needs-human-answered.js";
import { needsHumanCleared } from "../handlers/needs-human-cleared.js";
import {
  confirmRemovals,
  type InferredRemoval,
  inferRemovals,
  type RemovalEvidence,
  removalsOnceWritten,
} from "../handlers/removal-evidence.js";
import { revokeOnRemoval } from "../handlers/revoke-on-removal.js";
import type { SyncDeps } from "../handlers/sync-deps.js";
import type { GuardOptions, WebhookHandler } from "../handlers/webhook-guard.js";
import { needsHumanLabelShown, noteNeedsHumanLabelRemoved } from "../lease/calls/needs-human-show.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import type { LeaseEventPublisher } from "../lease/lease-events.js";
import type { GiteaUserRef } from "../providers/gitea/gitea-person.js";
import type { GiteaWebhookEvent } from "../providers/gitea/gitea-webhook-events.js";
import type { Stores } from "../providers/stores.js";
import { type GiteaReads, ownerAndName } from "./gitea-confirmations.js";

type ListChange = Extract<GiteaWebhookEvent, { kind: "issue-lists-now" }>;

export interface GiteaRemovalDeps extends SyncDeps {
  stores: Stores;
  configs: RepoConfigSource;
  fleet: FleetLogins;
  leaseEvents?: LeaseEventPublisher;
  reads: Pick<GiteaReads, "readIssue">;
}

/** A Gitea account as GitHub's payloads name one: `type` `Bot` for one that is no person (gitea-person.ts). */
export type GiteaAccountOf = (account: GiteaUserRef | null) => {
  login: string;
  node_id: string;
  type: string;
};

/** Runs one handler under the webhook guard, as the intake does (a name of its own per removal: its dedupe key). */
export type RunHandler = <P extends { sender?: { type?: string; login?: string } | null }, A>(
  name: string,
  handler: WebhookHandler<P, A>,
  payload: unknown,
  options?: GuardOptions,
) => Promise<void>;

/**
 * 1. an account that is no person (`isBot`: the App's own, Gitea's Actions and ghost users): nothing
 *    read, as the guard skips GitHub's bots (the App's writes are what the record already says);
 * 2. the record and the breaker: no live agent claim and no failed attempt → nothing more read;
 * 3. the config, the needs-human ask's document, who the sender is (`FleetLogins.actorKind`);
 * 4. `inferRemovals` (pure) on the delivery's list: nothing a person took off → nothing more read;
 *    while the claim's own write is on its way (`sync` pending) the delivery waits for it to land
 *    (bounded, `writeLandWaitMs`) and decides on the record it leaves: Gitea's `unassigned` names no
 *    one, so what was removed is only known against the issue read after that write;
 * 5. the issue as Gitea answers it now, and `confirmRemovals` (pure): a late or replayed delivery's
 *    list names a state that has passed, so only what Gitea still lacks counts. Each removal is run
 *    through GitHub's handlers as the `issues.unlabeled` / `issues.unassigned` delivery GitHub would
 *    have sent.
 */
export async function dispatchListChange(
  read: ListChange,
  deps: GiteaRemovalDeps,
  context: {
    installationId: number;
    isBot: boolean;
    common: Record<string, unknown>;
    user: GiteaAccountOf;
    run: RunHandler;
    /** The delivery's log (its id): a removal Gitea no longer shows is noted there. */
    log: Logger;
  },
): Promise<void> {
  if (context.isBot) return;
  const key: SubjectKey = {
    installationId: context.installationId,
    repoId: read.repository.id,
    issue: read.issue,
  };
  const record = await deps.stores.claims.get(key);
  const [breaker] = await deps.stores.claims.breakers([key]);
  const attempts = breaker?.attempts ?? [];
  const liveAgentClaim = record?.state === "active" && record.actor.kind === "agent";
  if (!liveAgentClaim && attempts.length === 0) return;
  const config = await deps.configs.load(key.installationId, read.repository.fullName);
  const lease = record ? { ...key, generation: record.generation } : null;
  const askShown =
    lease !== null && liveAgentClaim && record?.needsHuman === true
      ? await needsHumanLabelShown(deps.stores.documents, lease)
      : false;
  const holders = [
    ...attempts.map((attempt) => ({ marker: { actor: attempt.actor } })),
    ...(record ? [{ marker: { actor: record.actor } }] : []),
  ];
  const sender = await deps.fleet.actorKind(
    key.installationId,
    { login: read.sender.login, bot: context.isBot, ownApp: false },
    config,
    holders,
  );
  let evidence: RemovalEvidence = {
    sender,
    changed: read.changed,
    now: read.now,
    shown: {
      record,
      tripShown: attempts.length > 0 && breaker?.tripWrittenThrough !== undefined,
      askShown,
    },
    labels: config.labels,
  };
  let named = inferRemovals(evidence);
  if (sender === "fleet" && inferRemovals({ ...evidence, sender: "person" }).length > 0) {
    logFleetIgnored(context.log, "removal", read.sender.login);
  }
  if (named.length === 0 && record && removalsOnceWritten(evidence).length > 0) {
    const landed = await recordOnceWritten(deps.stores, key, record);
    if (!landed) {
      context.log.info(
        { issue: read.issue, waitedMs: writeLandWaitMs },
        "removal delivered during the claim's write not decided: the write did not land in time",
      );
      return;
    }
    evidence = { ...evidence, shown: { ...evidence.shown, record: landed } };
    named = inferRemovals(evidence);
  }
  if (named.length === 0) return;
  const [owner, name] = ownerAndName(read.repository.fullName);
  const issue = await deps.reads.readIssue(owner, name, read.issue);
  const removals = confirmRemovals(evidence, {
    labels: (issue.labels ?? []).map((label) => label.name),
    assignees: (issue.assignees ?? []).map((user) => user.login),
  });
  if (removals.length < named.length) {
    context.log.info(
      { issue: read.issue, named: named.length, confirmed: removals.length },
      "removal named by a late or replayed delivery ignored: Gitea shows it back",
    );
  }
  for (const removal of removals) {
    await runRemoval(removal, deps, read.issue, context);
    if (removal.kind === "label" && askShown && lease && removal.name === config.labels.needsHuman) {
      // The document now says the label is off: the next label edit is no new answer.
      await noteNeedsHumanLabelRemoved(deps.stores.documents, lease, config, deps.now());
    }
  }
}

/** How long a removal delivered during the claim's write waits for it: under Gitea's 5 s delivery timeout. */
export const writeLandWaitMs = 3_000;
const writeLandPollMs = 25;

/**
 * The subject's record once the write in flight when `seen` was read has landed (`sync` done, or
 * the record moved on: another generation or state); null when it has not within `writeLandWaitMs`.
 * The store is shared, so a write another replica makes is seen too.
 */
async function recordOnceWritten(
  stores: Stores,
  key: SubjectKey,
  seen: ClaimRecord,
): Promise<ClaimRecord | null> {
  for (let waited = 0; waited < writeLandWaitMs; waited += writeLandPollMs) {
    await sleep(writeLandPollMs);
    const now = await stores.claims.get(key);
    if (!now) return null;
    if (now.sync === "done" || now.generation !== seen.generation || now.state !== seen.state) return now;
  }
  return null;
}

async function runRemoval(
  removal: InferredRemoval,
  deps: GiteaRemovalDeps,
  issue: number,
  { common, run }: Parameters<typeof dispatchListChange>[2],
): Promise<void> {
  const subject = { ...common, issue: { number: issue } };
  if (removal.kind === "assignee") {
    const payload = {
      ...subject,
      action: "unassigned",
      assignee: { login: removal.login, node_id: removal.login, type: "User" },
    };
    await run(`issues.unassigned:${removal.login}`, revokeOnRemoval(deps), payload);
    return;
  }
  const payload = { ...subject, action: "unlabeled", label: { name: removal.name } };
  const name = `issues.unlabeled:${removal.name}`;
  await run(name, revokeOnRemoval(deps), payload);
  await run(name, needsHumanCleared(deps), payload);
  await run(name, needsHumanAnswered(deps), payload, { dedupe: false });
}
