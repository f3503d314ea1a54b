// The AssignmentProvider port on Gitea (and Forgejo): the reads of a subject and a repository, with the writer's writes, every request counted.
import type { MarkerSeal } from "../../domain/marker-seal.js";
import type {
  AppliedWrite,
  AssignmentProvider,
  ClaimEvidence,
  EvidenceChange,
  OpenIssuePage,
  SubjectRef,
  SubjectSnapshot,
  TransitionWrite,
} from "../assignment-provider.js";
import type { LabelSpec } from "../github/github-labels.js";
import { splitRepo } from "../github/split-repo.js";
import { GiteaAssignmentWriter } from "./gitea-assignment-writer.js";
import { type GiteaBotAccount, giteaBotAccount } from "./gitea-bot-account.js";
import type { GiteaClient } from "./gitea-client.js";
import { GiteaCollaboratorPermissions } from "./gitea-collaborator-permissions.js";
import { newestEvidenceChange } from "./gitea-evidence-change.js";
import { GiteaRepositoryNames } from "./gitea-repository-names.js";
import { giteaStatusOf, type RequestCounter } from "./gitea-routes.js";
import {
  type GiteaIssueRead,
  type GiteaPullRequest,
  type GiteaTimelineEntry,
  giteaPageSize,
} from "./gitea-schemas.js";
import {
  authorsToAsk,
  type GiteaMarkerReading,
  giteaPullRequestEvidence,
  giteaSnapshotOf,
  pullRequestsOfSubject,
} from "./gitea-subject-snapshot.js";

export interface GiteaAssignmentProviderOptions {
  client: GiteaClient;
  seal: MarkerSeal;
  /** Shared with the webhook intake, so the bot's login is read once per process. */
  bot?: GiteaBotAccount;
  onMarkerRejected?: (reason: string) => void;
  /** Pull request authors' permissions; shared with the identity provider when given. */
  permissions?: GiteaCollaboratorPermissions;
  /** The clock of the repository name memory (`GiteaRepositoryNames`). */
  now?: () => number;
}

/** Pages of the bot account's repositories the reconcile pass reads at most (50 each). */
export const maxRepositoryPages = 20;
/**
 * Pages of open pull requests a subject's read takes at most (50 each, 500 pull requests):
 * Gitea's list does not filter by head, and a pull request that closes the issue from another
 * branch is evidence too, so no narrower route serves (`…/pulls/{base}/{head}` needs the base).
 */
export const maxPullRequestPages = 10;
/** Reads of an issue's timeline (50 entries a page) a store-loss recovery makes at most. */
export const maxTimelinePages = 10;

export class GiteaAssignmentProvider implements AssignmentProvider {
  readonly #writer: GiteaAssignmentWriter;
  readonly #bot: GiteaBotAccount;
  readonly #permissions: GiteaCollaboratorPermissions;
  readonly #names: GiteaRepositoryNames;

  constructor(private readonly options: GiteaAssignmentProviderOptions) {
    this.#names = new GiteaRepositoryNames(options.client, options.now);
    this.#writer = new GiteaAssignmentWriter({
      client: options.client,
      seal: options.seal,
      names: this.#names,
    });
    this.#bot = options.bot ?? giteaBotAccount(options.client);
    this.#permissions = options.permissions ?? new GiteaCollaboratorPermissions(options.client);
  }

  /**
   * Requests: the issue, then its comments when it has any (one read: Gitea does not page them);
   * the bot's login once per process. Null for a missing issue or a pull request. Then the open
   * pull requests (50 a page until a short page, at most `maxPullRequestPages`; Gitea's route does
   * not filter by head): those that close the issue, and with `branch` those from it, are shown.
   * Their authors' permissions (`GET …/collaborators/{login}/permission`, cached 5 minutes) for
   * those from the base repository not opened by the App's account; with `branch`, the branch
   * (`GET …/branches/{branch}`, its head commit's time).
   */
  async status(ref: SubjectRef, options?: { branch?: string }): Promise<SubjectSnapshot | null> {
    const counter: RequestCounter = { requests: 0 };
    let issue = await this.#readIssue(ref, counter);
    if (issue && ref.repoId !== undefined && issue.repository.id !== ref.repoId) {
      // The record's name is another repository's now (renamed, its old name taken): read by the id's.
      const current = await this.#names.fresh(ref.repoId, counter);
      issue = current === null ? null : await this.#readIssue({ ...ref, repo: current }, counter);
      if (issue?.repository.id !== ref.repoId) return null;
    }
    if (!issue || issue.pull_request) return null;
    this.#names.saw(issue.repository.id, issue.repository.full_name);
    const { owner, name } = splitRepo(issue.repository.full_name);
    const snapshot = await this.#snapshot(owner, name, issue, counter);
    const branch = options?.branch;
    const [pulls, head] = await Promise.all([
      this.#openPullRequests(owner, name, counter),
      branch ? this.options.client.getBranch(owner, name, branch, counter) : null,
    ]);
    const repo = issue.repository.full_name;
    const shown = pullRequestsOfSubject(pulls, { repo, issue: issue.number, branch });
    const context = { repoId: issue.repository.id, botLogin: await this.#bot.login(counter) };
    const permissions = await this.#permissions.ofLogins(repo, authorsToAsk(shown, context), counter);
    return {
      ...snapshot,
      ...giteaPullRequestEvidence(shown, context, permissions),
      branchCommittedAt: head ? Date.parse(head.commit.timestamp) : null,
    };
  }

  /** The issue (or pull request) `ref` names; null when there is none. */
  async #readIssue(ref: SubjectRef, counter: RequestCounter): Promise<GiteaIssueRead | null> {
    const { owner, name } = splitRepo(ref.repo);
    try {
      return await this.options.client.readIssue(owner, name, ref.issue, counter);
    } catch (error) {
      if (giteaStatusOf(error) === 404) return null;
      throw error;
    }
  }

  /** Every open pull request, page by page until a short (or empty) one, within `maxPullRequestPages`. */
  async #openPullRequests(owner: string, name: string, counter: RequestCounter) {
    const pulls: GiteaPullRequest[] = [];
    for (let page = 1; page <= maxPullRequestPages; page++) {
      const listed = await this.options.client.listOpenPullRequests(owner, name, page, counter);
      pulls.push(...listed);
      if (listed.length < giteaPageSize) break;
    }
    return pulls;
  }

  /**
   * One page of open issues (`after`: the page number a previous page answered), then the comments
   * of each issue that has some. Gitea's swagger says its `labels` filter keeps issues with any of
   * them, while its database filter joins each label (all of them): one label is filtered by Gitea,
   * several here after an unfiltered read (right either way), so a page may hold fewer than `first`
   * issues. Within a page,
   * most recently updated first; across pages, Gitea's order. An empty first page reads the
   * repository for its id.
   */
  async listOpenIssues(
    ref: Omit<SubjectRef, "issue">,
    options: { first: number; after?: string | null; labels?: string[] | null },
  ): Promise<OpenIssuePage> {
    const { owner, name } = splitRepo(ref.repo);
    const client = this.options.client;
    const counter: RequestCounter = { requests: 0 };
    const page = options.after ? Number(options.after) : 1;
    if (!Number.isInteger(page) || page < 1) throw new TypeError(`not a Gitea page cursor: ${options.after}`);
    const limit = Math.max(1, Math.min(options.first, giteaPageSize));
    const labels = options.labels ?? null;
    let listed: GiteaIssueRead[];
    try {
      listed = await client.listOpenIssues(
        owner,
        name,
        { page, limit, labels: labels?.length === 1 ? labels : null },
        counter,
      );
    } catch (error) {
      if (giteaStatusOf(error) === 404)
        return { repoId: null, issues: [], hasNextPage: false, endCursor: null };
      throw error;
    }
    const wanted = new Set((labels ?? []).map((label) => label.toLowerCase()));
    const matching = listed
      .filter((issue) => !issue.pull_request)
      .filter(
        (issue) => wanted.size === 0 || (issue.labels ?? []).some((l) => wanted.has(l.name.toLowerCase())),
      )
      .sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at));
    const issues: SubjectSnapshot[] = [];
    for (const issue of matching) issues.push(await this.#snapshot(owner, name, issue, counter));
    const first = listed[0];
    const repoId = first ? first.repository.id : (await client.getRepository(owner, name, counter)).id;
    const hasNextPage = listed.length === limit;
    return { repoId, issues, hasNextPage, endCursor: hasNextPage ? String(page + 1) : null };
  }

  /** Every repository the bot account can see (`GET /user/repos`, 50 a page, at most `maxRepositoryPages`). */
  async listRepositories(_installationId: number): Promise<string[]> {
    const names: string[] = [];
    for (let page = 1; page <= maxRepositoryPages; page++) {
      const repositories = await this.options.client.listMyRepositories(page);
      names.push(...repositories.map((repository) => repository.full_name));
      if (repositories.length < giteaPageSize) break;
    }
    return names;
  }

  /** `GET /repositories/{id}`; null when the bot account cannot see it. */
  repositoryName(_installationId: number, repoId: number): Promise<string | null> {
    return this.#names.fresh(repoId, { requests: 0 });
  }

  /**
   * The newest timeline entry that added or removed `evidence` (`GET …/issues/{index}/timeline`,
   * oldest first, 50 a page), then the bot's login once per process. Every page is read up to an
   * empty one: Gitea leaves out the cross-references the bot cannot see, so a short page is no proof
   * of the end (docs/reference/gitea-surfaces.md#store-loss-who-removed-a-claims-evidence). `unknown` when no entry changed it, or when
   * `maxTimelinePages` reads do not reach the end.
   */
  async lastEvidenceChange(ref: SubjectRef, evidence: ClaimEvidence): Promise<EvidenceChange> {
    const { owner, name } = splitRepo(ref.repo);
    const counter: RequestCounter = { requests: 0 };
    const entries: GiteaTimelineEntry[] = [];
    for (let page = 1; page <= maxTimelinePages; page++) {
      const listed = await this.options.client.listIssueTimeline(owner, name, ref.issue, page, counter);
      if (listed.length === 0) {
        const change = newestEvidenceChange(entries, evidence, await this.#bot.login(counter));
        return change ?? { kind: "unknown" };
      }
      for (const entry of listed) if (entry) entries.push(entry);
    }
    return { kind: "unknown" };
  }

  apply(ref: SubjectRef, write: TransitionWrite): Promise<AppliedWrite> {
    return this.#writer.apply(ref, write);
  }

  ensureLabels(ref: Omit<SubjectRef, "issue">, labels: LabelSpec[]): Promise<void> {
    return this.#writer.ensureLabels(ref, labels);
  }

  async #snapshot(owner: string, name: string, issue: GiteaIssueRead, counter: RequestCounter) {
    const reading: GiteaMarkerReading = {
      seal: this.options.seal,
      botLogin: await this.#bot.login(counter),
      onMarkerRejected: this.options.onMarkerRejected,
    };
    const comments =
      issue.comments > 0 ? await this.options.client.listComments(owner, name, issue.number, counter) : [];
    return giteaSnapshotOf(issue, comments, reading);
  }
}
