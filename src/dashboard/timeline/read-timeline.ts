// The dashboard's history: recent subjects' transitions, recent notifications and spend, from the store alone (bounded reads, no GitHub).
import type { ClaimRecord, SubjectKey } from "../../domain/claim.js";
import type { WebBaseOf } from "../../domain/web-links.js";
import type { ClaimIndex, InstallationStore } from "../../providers/app-stores.js";
import type { ClaimStore } from "../../providers/liveness-store.js";
import type { OutboxStore, RecentDelivery, RetryingDelivery } from "../../providers/outbox-store.js";
import type { SubjectHistory } from "./timeline-layout.js";

export const timelineWindowMs = 24 * 3_600_000;
/** Repositories listed per page view, over every installation; the rest is left out (and said so). */
export const timelineRepositories = 40;
/** Records listed per repository, most recent activity first. */
export const timelineRecordsPerRepository = 100;
/** Subjects whose history is read per page view: one store read each. */
export const timelineSubjects = 60;
export const timelineLanes = 24;
export const notificationsShown = 20;

export interface TimelineDeps {
  stores: {
    installations: Pick<InstallationStore, "installations">;
    index: Pick<ClaimIndex, "repositories" | "listRepository">;
    claims: Pick<ClaimStore, "history">;
    /** Each subject's spend in micro-dollars (stores that keep spend); absent: the page shows none. */
    spend?: { spendOf(keys: readonly SubjectKey[]): Promise<number[]> };
  };
  /** The notification outbox; absent: no list of recent notifications or of those waiting to retry. */
  outbox?: Pick<OutboxStore, "recent" | "retrying">;
  /** Each installation record's forge web base (GitHub's, GHE's or a Gitea instance's). */
  webBaseOf: WebBaseOf;
  now: () => number;
}

export interface SubjectSpend {
  installationId: number;
  subject: string;
  repo: string;
  issue: number;
  usd: number;
}

export interface TimelineData {
  now: number;
  windowMs: number;
  webBaseOf: WebBaseOf;
  subjects: SubjectHistory[];
  notifications: RecentDelivery[] | null;
  /** Deliveries waiting for another try after a failed one; null without an outbox. */
  retrying: RetryingDelivery[] | null;
  /** Null when the store keeps no spend. */
  spend: SubjectSpend[] | null;
  /** What the bounds left out, for the page to say. */
  left: { repositories: number; subjects: number; recordsTruncated: boolean };
}

function activityOf(record: ClaimRecord): number {
  return Math.max(record.claimedAt, record.lastHeartbeatAt, record.endedAt ?? 0);
}

export async function readTimeline(
  deps: TimelineDeps,
  windowMs: number = timelineWindowMs,
): Promise<TimelineData> {
  const { stores } = deps;
  const now = deps.now();
  const since = now - windowMs;
  const repositories: { installationId: number; repoId: number }[] = [];
  for (const installationId of await stores.installations.installations()) {
    for (const repoId of await stores.index.repositories(installationId))
      repositories.push({ installationId, repoId });
  }
  const listed = repositories.slice(0, timelineRepositories);
  let recordsTruncated = false;
  const records = (
    await Promise.all(
      listed.map(async ({ installationId, repoId }) => {
        const page = await stores.index.listRepository(
          installationId,
          repoId,
          timelineRecordsPerRepository + 1,
        );
        if (page.length > timelineRecordsPerRepository) recordsTruncated = true;
        return page.slice(0, timelineRecordsPerRepository);
      }),
    )
  )
    .flat()
    .filter((record) => activityOf(record) >= since || record.state === "active" || record.state === "human")
    .sort((a, b) => activityOf(b) - activityOf(a));
  const shown = records.slice(0, timelineSubjects);
  const keys: SubjectKey[] = shown.map((r) => ({
    installationId: r.installationId,
    repoId: r.repoId,
    issue: r.issue,
  }));
  const [histories, notifications, retrying, spends] = await Promise.all([
    Promise.all(keys.map((key) => stores.claims.history(key))),
    deps.outbox ? deps.outbox.recent(notificationsShown) : Promise.resolve(null),
    deps.outbox ? deps.outbox.retrying(notificationsShown) : Promise.resolve(null),
    stores.spend ? stores.spend.spendOf(keys) : Promise.resolve(null),
  ]);
  const subjects: SubjectHistory[] = shown.map((record, i) => ({
    installationId: record.installationId,
    subject: `${record.repo}#${record.issue}`,
    repo: record.repo,
    issue: record.issue,
    record,
    transitions: histories[i]!,
  }));
  return {
    now,
    windowMs,
    webBaseOf: deps.webBaseOf,
    subjects,
    notifications,
    retrying,
    spend: spends
      ? subjects
          .map((s, i) => ({
            installationId: shown[i]!.installationId,
            subject: s.subject,
            repo: s.repo,
            issue: s.issue,
            usd: (spends[i] ?? 0) / 1e6,
          }))
          .filter((s) => s.usd > 0)
          .sort((a, b) => b.usd - a.usd || a.subject.localeCompare(b.subject))
      : null,
    left: {
      repositories: repositories.length - listed.length,
      subjects: records.length - shown.length,
      recordsTruncated,
    },
  };
}
