// The notifications (docs/deploy.md#9-notifications), built from what the lease core and the janitor already know; pure.
import type { RepoConfig } from "../config/repo-config.js";
import { type Actor, type ClaimRecord, subjectName } from "../domain/claim.js";
import { wasStalled } from "../domain/stall.js";
import type { NotificationInput } from "./notifier.js";

type Config = Pick<RepoConfig, "notify">;

function subjectId(record: Pick<ClaimRecord, "installationId" | "repoId" | "issue">): string {
  return `${record.installationId}:${record.repoId}:${record.issue}`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** What the JSON body says of an actor: as the claim record names it. */
function actorData(actor: Actor): Actor {
  return { ...actor };
}

/** A claim superseded an agent's active claim (a takeover). */
export function takeoverNotification(
  previous: ClaimRecord,
  record: ClaimRecord,
  config: Config,
): NotificationInput {
  return {
    event: "takeover",
    installationId: record.installationId,
    subject: subjectName(record.repo, record.issue),
    data: {
      previousGeneration: previous.generation,
      generation: record.generation,
      previous: actorData(previous.actor),
      holder: actorData(record.actor),
      ...(record.branch ? { branch: record.branch } : {}),
      // The taken generation was live and stalled (onStall: reclaimable): a failure, for the breaker.
      ...(wasStalled(previous, record.claimedAt) ? { stalled: true } : {}),
    },
    repoEvents: config.notify.events,
    key: `takeover:${subjectId(record)}:${record.generation}`,
  };
}

/** The janitor marked a silent holder's claim stale. */
export function staleNotification(record: ClaimRecord, markedAt: number, config: Config): NotificationInput {
  return {
    event: "stale",
    installationId: record.installationId,
    subject: subjectName(record.repo, record.issue),
    data: {
      generation: record.generation,
      holder: actorData(record.actor),
      lastHeartbeatAt: iso(record.lastHeartbeatAt),
    },
    repoEvents: config.notify.events,
    key: `stale:${subjectId(record)}:${record.generation}:${markedAt}`,
  };
}

/** The janitor reaped a claim whose holder stayed silent past `reclaimAfter`. */
export function reapedNotification(reaped: ClaimRecord, config: Config): NotificationInput {
  return {
    event: "reaped",
    installationId: reaped.installationId,
    subject: subjectName(reaped.repo, reaped.issue),
    data: {
      generation: reaped.generation,
      holder: actorData(reaped.actor),
      lastHeartbeatAt: iso(reaped.lastHeartbeatAt),
    },
    repoEvents: config.notify.events,
    key: `reaped:${subjectId(reaped)}:${reaped.generation}`,
  };
}

/** A PR's `claim-hold` check turned to failure because the holder it came from was superseded. */
export function supersededPullRequestNotification(
  input: {
    record: ClaimRecord;
    pullRequest: number;
    headSha: string;
    headRef: string;
    /** The superseded generation the PR's head belongs to, when known. */
    supersededGeneration?: number;
  },
  config: Config,
): NotificationInput {
  const { record } = input;
  const held = record.state === "active" || record.state === "human";
  return {
    event: "superseded-pr",
    installationId: record.installationId,
    subject: subjectName(record.repo, record.issue),
    data: {
      pullRequest: input.pullRequest,
      headSha: input.headSha,
      headRef: input.headRef,
      generation: record.generation,
      ...(input.supersededGeneration !== undefined ? { previousGeneration: input.supersededGeneration } : {}),
      ...(held ? { holder: actorData(record.actor) } : {}),
    },
    repoEvents: config.notify.events,
    key: `superseded-pr:${subjectId(record)}:${input.pullRequest}:${input.headSha}:${record.generation}`,
  };
}

/** The disruption guard stopped the janitor reaping an installation (too many claims due at once). */
export function janitorHaltedNotification(
  input: { installationId: number; reaps: number; active: number; repos: string[]; sweepAt: number },
  configs: readonly Config[],
): NotificationInput {
  return {
    event: "janitor-halted",
    installationId: input.installationId,
    subject: null,
    data: { reaps: input.reaps, active: input.active, repos: input.repos },
    // Installation-wide: sent when any repository with reaps held back asks for it.
    repoEvents: [...new Set(configs.flatMap((c) => c.notify.events))],
    key: `janitor-halted:${input.installationId}:${input.sweepAt}`,
  };
}

/**
 * A holder asked for a person (heartbeat `needsHuman`, docs/agents.md#asking-for-a-person). `since` names the
 * occurrence: the same blocker raised again by the next heartbeat is the same event.
 */
export function needsHumanNotification(
  record: Pick<ClaimRecord, "installationId" | "repoId" | "issue" | "repo" | "generation" | "actor">,
  blocker: string,
  since: number,
  config: Config,
): NotificationInput {
  return {
    event: "needs-human",
    installationId: record.installationId,
    subject: subjectName(record.repo, record.issue),
    data: {
      generation: record.generation,
      holder: actorData(record.actor),
      blocker,
      ...(config.notify.mention ? { mention: config.notify.mention } : {}),
    },
    repoEvents: config.notify.events,
    key: `needs-human:${subjectId(record)}:${record.generation}:${since}`,
  };
}

/** A live claim made no progress for `stallAfter` (docs/reference/http-api.md#stalled): once per generation. */
export function stalledNotification(
  record: Pick<
    ClaimRecord,
    "installationId" | "repoId" | "issue" | "repo" | "generation" | "actor" | "onStall" | "branch"
  >,
  stalledSince: number,
  lastProgressAt: number,
  config: Config,
): NotificationInput {
  return {
    event: "stalled",
    installationId: record.installationId,
    subject: subjectName(record.repo, record.issue),
    data: {
      generation: record.generation,
      holder: actorData(record.actor),
      stalledSince: iso(stalledSince),
      lastProgressAt: iso(lastProgressAt),
      onStall: record.onStall ?? "needs-human",
      ...(record.branch ? { branch: record.branch } : {}),
      ...(config.notify.mention ? { mention: config.notify.mention } : {}),
    },
    repoEvents: config.notify.events,
    key: `stalled:${subjectId(record)}:${record.generation}`,
  };
}

/** A subject's spend crossed its class's `warnUsd` (`budget-warn`, once) or `maxUsd` (`budget-exhausted`). */
export function budgetNotification(
  event: "budget-warn" | "budget-exhausted",
  record: Pick<
    ClaimRecord,
    "installationId" | "repoId" | "issue" | "repo" | "generation" | "actor" | "taskClass"
  >,
  spend: { spentUsd: number; limitUsd: number },
  config: Config,
): NotificationInput {
  return {
    event,
    installationId: record.installationId,
    subject: subjectName(record.repo, record.issue),
    data: {
      generation: record.generation,
      holder: actorData(record.actor),
      taskClass: record.taskClass,
      spentUsd: spend.spentUsd,
      limitUsd: spend.limitUsd,
    },
    repoEvents: config.notify.events,
    // A warning once per subject and limit, whatever generation crosses it; an exhausted budget once per lease.
    key:
      event === "budget-warn"
        ? `${event}:${subjectId(record)}:${spend.limitUsd}`
        : `${event}:${subjectId(record)}:${record.generation}`,
  };
}
