// The subject page's data: the API's joined subject read (`GET …/issues/{n}/claim`), then the store's record, the fence's PRs with their verdicts, and the subject's recent notifications.
import { defaultRepoConfig, type RepoConfig } from "../config/repo-config.js";
import type { CheckConclusion } from "../domain/check-values.js";
import type { ClaimRecord, SubjectKey } from "../domain/claim.js";
import type { SubjectAddress } from "../domain/subject-address.js";
import type { WebBase, WebBaseOf } from "../domain/web-links.js";
import { type NeedsPerson, needsPersonOf } from "../handlers/operator-clear-needs-human.js";
import type { SubjectView } from "../lease/reads/lease-reads.js";
import { LeaseRefused } from "../lease/refusals.js";
import type { FenceStore, IndexedPullRequest } from "../providers/fence-store.js";
import type { ClaimStore, HeartbeatGaps } from "../providers/liveness-store.js";
import type { OutboxStore, RecentDelivery } from "../providers/outbox-store.js";

/** Settled deliveries searched for the subject's own (the outbox keeps no per-subject list). */
export const notificationsSearched = 200;

export interface SubjectReadDeps {
  /** The installation record of an addressed subject (`routeByForge`'s): null when none serves it. */
  installationOf: (subject: SubjectAddress) => Promise<number | null>;
  /** The read behind `GET /api/v1/repos/{owner}/{repo}/issues/{n}/claim`, with the subject's store key. */
  subjectWithKey: (
    installationId: number,
    repo: string,
    issue: number,
  ) => Promise<{ key: SubjectKey; view: SubjectView; heartbeatGaps: HeartbeatGaps | null }>;
  claims: Pick<ClaimStore, "get" | "failures">;
  fences: Pick<FenceStore, "pullRequestsFor">;
  peekConfig: (installationId: number, repo: string) => RepoConfig | undefined;
  verdictOf?: (
    installationId: number,
    repo: string,
    repoId: number,
    pr: IndexedPullRequest,
    config: RepoConfig,
  ) => Promise<{ conclusion: CheckConclusion }>;
  outbox?: Pick<OutboxStore, "recent">;
  webBaseOf: WebBaseOf;
  now: () => number;
}

export interface SubjectPullRequest {
  number: number;
  headSha: string;
  headRef: string;
  author: string;
  /** The claim-hold verdict the store's evidence gives its head; null when not computed. */
  verdict: CheckConclusion | null;
}

export interface SubjectPageData {
  installationId: number;
  repo: string;
  issue: number;
  view: SubjectView;
  /** The store's record of the current (or last) incarnation; null when the subject was never claimed. */
  record: ClaimRecord | null;
  /** The gaps between the heartbeats of the last generation that beat (perhaps an ended one); null when none are kept. */
  heartbeatGaps: HeartbeatGaps | null;
  pullRequests: SubjectPullRequest[];
  /** What needs a person (the holder's ask, a tripped failure breaker); null when nothing does. */
  needsPerson: NeedsPerson | null;
  /** Null when the App keeps no outbox. */
  notifications: RecentDelivery[] | null;
  /** The web base of the subject's forge (its installation record's); null: a record of no forge served, no links. */
  web: WebBase | null;
  now: number;
}

/** The subject page's data; null when no served record has the repository or the number is no issue. */
export async function readSubject(
  deps: SubjectReadDeps,
  address: SubjectAddress,
): Promise<SubjectPageData | null> {
  const { repo, issue } = address;
  const installationId = await deps.installationOf(address);
  if (installationId === null) return null;
  let read: Awaited<ReturnType<SubjectReadDeps["subjectWithKey"]>>;
  try {
    read = await deps.subjectWithKey(installationId, repo, issue);
  } catch (error) {
    if (error instanceof LeaseRefused && error.code === "not_found") return null;
    throw error;
  }
  const { key, view, heartbeatGaps } = read;
  const subject = view.subject;
  const [record, attempts, prs, recent] = await Promise.all([
    deps.claims.get(key),
    deps.claims.failures(key),
    deps.fences.pullRequestsFor(key),
    deps.outbox ? deps.outbox.recent(notificationsSearched) : Promise.resolve(null),
  ]);
  const name = record?.repo ?? repo;
  const config = deps.peekConfig(installationId, name) ?? defaultRepoConfig;
  const pullRequests = await Promise.all(
    prs.map(async (pr) => ({
      number: pr.number,
      headSha: pr.headSha,
      headRef: pr.headRef,
      author: pr.author.login,
      verdict: deps.verdictOf
        ? (await deps.verdictOf(installationId, name, key.repoId, pr, config)).conclusion
        : null,
    })),
  );
  return {
    installationId,
    repo: name,
    issue: key.issue,
    view,
    record,
    heartbeatGaps,
    pullRequests,
    needsPerson: record ? needsPersonOf(record, attempts, config, deps.now()) : null,
    notifications: recent ? recent.filter((d) => d.subject === subject) : null,
    web: deps.webBaseOf(installationId),
    now: deps.now(),
  };
}
