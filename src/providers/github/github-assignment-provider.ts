// The GitHub side of a claim: one GraphQL read per subject and one batched GraphQL mutation per transition (concurrent ones of an installation share it).
import { sealClaimComment } from "../../domain/claim-marker.js";
import type { MarkerSeal } from "../../domain/marker-seal.js";
import {
  type AppliedWrite,
  type AssignmentProvider,
  type ClaimEvidence,
  type EvidenceChange,
  GitHubWriteError,
  type OpenIssuePage,
  type SubjectRef,
  type SubjectSnapshot,
  type TransitionWrite,
} from "../assignment-provider.js";
import type { RequestCounter, SendRequest } from "./counted-requests.js";
import { describeGitHubError, onlyNotFoundErrors } from "./github-errors.js";
import { type LabelNamesSource, type LabelSpec, type RepoRef, RepositoryLabels } from "./github-labels.js";
import {
  buildTransitionMutation,
  MAX_ADDED_COMMENTS,
  MAX_EDITED_COMMENTS,
  OPEN_ISSUES_QUERY,
  type OpenIssuesResponse,
  type OpenIssuesVariables,
  SUBJECT_STATUS_QUERY,
  type SubjectStatusResponse,
  type SubjectStatusVariables,
  type TransitionResponse,
} from "./graphql/index.js";
import { type GitHubRequestKind, httpStatusOf, type OctokitLike } from "./octokit-like.js";
import { splitRepo } from "./split-repo.js";
import { type MarkerReading, pullRequestsOf, searchEarlierComments, snapshotOf } from "./subject-snapshot.js";
import { TransitionBatcher } from "./transition-batcher.js";

export interface GitHubAssignmentProviderOptions {
  /** An installation client (Probot's `app.auth(installationId)`). */
  octokitFor: (installationId: number) => Promise<OctokitLike>;
  /** The managed label names, fixed or per repository (`labels` in `.github/claim-hold.yml`). */
  labels?: LabelNamesSource;
  /** Called once for every HTTP request the provider makes (metrics, tests). */
  onRequest?: (kind: GitHubRequestKind) => void;
  /** Signs the markers the App writes and checks the ones it reads (invariant 11). */
  seal: MarkerSeal;
  /** Concurrent transitions of one installation share a mutation request (see ClaimHoldOptions). */
  coalesceWrites?: boolean;
  /** Told how many transitions wait for their installation's mutation in flight, whenever it changes. */
  onQueuedWrites?: (queued: number) => void;
  /** Called for every marker read that is not trusted (unsigned, forged, misplaced, foreign). */
  onMarkerRejected?: (reason: string) => void;
}

export class GitHubAssignmentProvider implements AssignmentProvider {
  /** HTTP requests made so far, all calls together. */
  requests = 0;
  readonly #sender: SendRequest = (counter, kind, call) => this.#send(counter, kind, call);
  readonly #labels: RepositoryLabels;
  readonly #reading: MarkerReading;
  /** Concurrent transitions of one installation share a mutation request (serial writes, batched). */
  readonly #batcher: TransitionBatcher;

  constructor(private readonly options: GitHubAssignmentProviderOptions) {
    this.#labels = new RepositoryLabels(options.labels, this.#sender);
    this.#reading = { seal: options.seal, onMarkerRejected: options.onMarkerRejected };
    this.#batcher = new TransitionBatcher(
      (octokit, document, variables) =>
        this.#send({ requests: 0 }, "apply-transition", () => octokit.graphql(document, variables)),
      { onQueued: options.onQueuedWrites },
    );
  }

  async status(ref: SubjectRef, options: { branch?: string } = {}): Promise<SubjectSnapshot | null> {
    const { owner, name } = splitRepo(ref.repo);
    const labels = await this.#labels.namesFor(ref);
    const octokit = await this.options.octokitFor(ref.installationId);
    const variables: SubjectStatusVariables = {
      owner,
      name,
      number: ref.issue,
      claimedLabel: labels.claimed,
      staleLabel: labels.stale,
      branch: options.branch ?? "",
      qualifiedBranch: options.branch ? `refs/heads/${options.branch}` : "",
      withBranch: Boolean(options.branch),
    };
    let data: SubjectStatusResponse;
    try {
      data = await this.#send({ requests: 0 }, "subject-status", () =>
        octokit.graphql<SubjectStatusResponse>(SUBJECT_STATUS_QUERY, { ...variables }),
      );
    } catch (error) {
      // A missing repository or number comes back as NOT_FOUND errors, not as a null field.
      if (onlyNotFoundErrors(error)) return null;
      throw error;
    }
    const repository = data.repository;
    const issue = repository?.issueOrPullRequest;
    if (!repository || !issue || issue.__typename !== "Issue") return null;

    this.#labels.remember(ref, [
      repository.claimedLabel,
      repository.staleLabel,
      ...(issue.labels?.nodes ?? []),
    ]);
    const snapshot = snapshotOf(ref, repository, issue, this.#reading);
    await searchEarlierComments(this.#sender, octokit, ref, issue, snapshot, this.#reading);
    Object.assign(
      snapshot,
      pullRequestsOf([
        ...(issue.closedByPullRequestsReferences?.nodes ?? []),
        ...(repository.branchPullRequests?.nodes ?? []),
      ]),
    );
    const committedDate = repository.branchRef?.target?.committedDate;
    snapshot.branchCommittedAt = committedDate ? Date.parse(committedDate) : null;
    return snapshot;
  }

  /** One page of open issues, most recently updated first, each as a snapshot (branch evidence not read). */
  async listOpenIssues(
    ref: Omit<SubjectRef, "issue">,
    options: { first: number; after?: string | null; labels?: string[] | null },
  ): Promise<OpenIssuePage> {
    const { owner, name } = splitRepo(ref.repo);
    const octokit = await this.options.octokitFor(ref.installationId);
    const variables: OpenIssuesVariables = {
      owner,
      name,
      first: Math.min(100, Math.max(1, options.first)),
      after: options.after ?? null,
      labels: options.labels ?? null,
    };
    const data = await this.#send({ requests: 0 }, "open-issues", () =>
      octokit.graphql<OpenIssuesResponse>(OPEN_ISSUES_QUERY, { ...variables }),
    );
    const repository = data.repository;
    if (!repository) return { repoId: null, issues: [], hasNextPage: false, endCursor: null };
    const managed = new Set(Object.values(await this.#labels.namesFor(ref)).map((l) => l.toLowerCase()));
    const issues: SubjectSnapshot[] = [];
    for (const issue of repository.issues.nodes ?? []) {
      if (!issue) continue;
      const subject = { ...ref, issue: issue.number };
      this.#labels.remember(ref, issue.labels?.nodes ?? []);
      const snapshot = snapshotOf(subject, repository, issue, this.#reading);
      // Only a subject that shows a claim needs its claim comment, however far back it is.
      if (snapshot.labels.some((l) => managed.has(l.toLowerCase()))) {
        await searchEarlierComments(this.#sender, octokit, subject, issue, snapshot, this.#reading);
      }
      issues.push(snapshot);
    }
    return { repoId: repository.databaseId, issues, ...repository.issues.pageInfo };
  }

  async listRepositories(installationId: number): Promise<string[]> {
    const octokit = await this.options.octokitFor(installationId);
    const names: string[] = [];
    for (let page = 1; page <= 50; page++) {
      const response = await this.#send({ requests: 0 }, "list-repositories", () =>
        octokit.request("GET /installation/repositories", { per_page: 100, page }),
      );
      const data = response.data as { repositories?: { full_name: string }[] };
      const batch = data.repositories ?? [];
      names.push(...batch.map((r) => r.full_name));
      if (batch.length < 100) break;
    }
    return names;
  }

  async repositoryName(installationId: number, repoId: number): Promise<string | null> {
    const octokit = await this.options.octokitFor(installationId);
    try {
      const response = await this.#send({ requests: 0 }, "get-repository", () =>
        octokit.request("GET /repositories/{id}", { id: repoId }),
      );
      return (response.data as { full_name: string }).full_name;
    } catch (error) {
      if (httpStatusOf(error) === 404) return null;
      throw error;
    }
  }

  /**
   * `assign`/`unassign` are account node ids and `addLabels`/`removeLabels` label names. Sends one
   * GraphQL mutation; a label name the cache does not know costs one lookup, and a label missing
   * from the repository one REST create (removals of missing labels are dropped).
   */
  async apply(ref: SubjectRef, write: TransitionWrite): Promise<AppliedWrite> {
    const edits = write.editComments ?? [];
    const comments = write.addComments ?? [];
    if (edits.length > MAX_EDITED_COMMENTS || comments.length > MAX_ADDED_COMMENTS) {
      throw new RangeError(
        `a transition edits at most ${MAX_EDITED_COMMENTS} and adds at most ${MAX_ADDED_COMMENTS} comments`,
      );
    }
    const { owner, name } = splitRepo(ref.repo);
    const counter: RequestCounter = { requests: 0 };
    try {
      const octokit = await this.options.octokitFor(ref.installationId);
      const addLabels = unique(write.addLabels ?? []);
      const removeLabels = unique(write.removeLabels ?? []);
      const ids = await this.#labels.resolveIds(octokit, ref, [...addLabels, ...removeLabels], counter);
      for (const label of addLabels) {
        if (!ids.has(label.toLowerCase())) {
          ids.set(label.toLowerCase(), await this.#labels.create(octokit, ref, label, counter));
        }
      }
      const mutation = buildTransitionMutation({
        subjectNodeId: write.subjectNodeId,
        assigneeIds: unique(write.assign ?? []),
        unassigneeIds: unique(write.unassign ?? []),
        addLabelIds: unique(addLabels.map((l) => ids.get(l.toLowerCase())!)),
        removeLabelIds: unique(removeLabels.flatMap((l) => ids.get(l.toLowerCase()) ?? [])),
        editComments: edits.map((edit) => ({
          ...edit,
          body: sealClaimComment(edit.body, this.options.seal),
        })),
        ...(write.createClaimComment !== undefined
          ? { claimComment: sealClaimComment(write.createClaimComment, this.options.seal) }
          : {}),
        // Audit comments never carry a marker: anything that could open one is defused.
        addComments: comments.map(defuseMarkers),
      });
      if (!mutation) return { requests: counter.requests };

      let data: TransitionResponse;
      if (this.options.coalesceWrites) {
        counter.requests++;
        data = (await this.#batcher.submit(
          ref.installationId,
          write.subjectNodeId,
          octokit,
          mutation,
        )) as TransitionResponse;
      } else {
        data = await this.#send(counter, "apply-transition", () =>
          octokit.graphql<TransitionResponse>(mutation.document, mutation.variables),
        );
      }
      const added = comments.flatMap((_, i) => data[`comment${i}`]?.commentEdge?.node?.id ?? []);
      const addedComments = added.length ? { addedComments: added } : {};
      if (write.createClaimComment === undefined) return { ...addedComments, requests: counter.requests };
      const node = data.claimComment?.commentEdge?.node;
      if (!node || node.databaseId === null) {
        throw new GitHubWriteError(
          `failed to apply claim transition on ${owner}/${name}#${ref.issue}: GitHub did not return the new claim comment`,
        );
      }
      return {
        claimComment: { nodeId: node.id, databaseId: node.databaseId },
        ...addedComments,
        requests: counter.requests,
      };
    } catch (error) {
      if (error instanceof GitHubWriteError) throw error;
      this.#labels.forget(ref);
      throw new GitHubWriteError(
        `failed to apply claim transition on ${owner}/${name}#${ref.issue}: ${describeGitHubError(error)}`,
        httpStatusOf(error),
        { cause: error },
      );
    }
  }

  /**
   * The newest `assigned`/`unassigned` event of `login` (REST `GET …/issues/{n}/events`, oldest
   * first): the last page, then earlier ones, at most `maxEventPages` reads in all.
   */
  async lastEvidenceChange(ref: SubjectRef, evidence: ClaimEvidence): Promise<EvidenceChange> {
    const { owner, name } = splitRepo(ref.repo);
    const octokit = await this.options.octokitFor(ref.installationId);
    const read = (page: number) =>
      this.#send({ requests: 0 }, "list-issue-events", () =>
        octokit.request("GET /repos/{owner}/{repo}/issues/{issue_number}/events", {
          owner,
          repo: name,
          issue_number: ref.issue,
          per_page: 100,
          page,
        }),
      );
    let response = await read(1);
    let page = lastPageOf(response.headers?.link) ?? 1;
    if (page > 1) response = await read(page);
    for (let reads = 1; ; reads++) {
      const change = newestChangeOf(response.data as IssueEventObject[], evidence);
      if (change) return change;
      page--;
      if (page < 1 || reads >= maxEventPages) return { kind: "unknown" };
      response = await read(page);
    }
  }

  async ensureLabels(ref: RepoRef, labels: LabelSpec[]): Promise<void> {
    const octokit = await this.options.octokitFor(ref.installationId);
    await this.#labels.ensure(octokit, ref, labels);
  }

  async #send<T>(counter: RequestCounter, kind: GitHubRequestKind, call: () => Promise<T>): Promise<T> {
    counter.requests++;
    this.requests++;
    this.options.onRequest?.(kind);
    return call();
  }
}

/** Pages of an issue's events read to find who last changed an assignment. */
const maxEventPages = 3;

/**
 * The fields of GitHub's REST issue event read here (`@octokit/openapi-types` `issue-event`, which
 * test/sim-issue-events.test.ts checks it against).
 */
export interface IssueEventObject {
  event: string;
  actor: { login: string; type: string } | null;
  assignee?: { login: string } | null;
  label?: { name: string | null } | null;
  performed_via_github_app?: { id: number } | null;
}

/** The page number of a `Link` header's `rel="last"`, if any. */
function lastPageOf(link: string | number | undefined): number | null {
  if (typeof link !== "string") return null;
  const last = /<([^>]*)>;\s*rel="last"/.exec(link)?.[1];
  if (!last) return null;
  const page = Number(new URL(last).searchParams.get("page"));
  return Number.isInteger(page) && page > 0 ? page : null;
}

/** The newest assignment event of `login` on one page of events (oldest first), if any. */
function newestChangeOf(events: IssueEventObject[], evidence: ClaimEvidence): EvidenceChange | null {
  const [added, removed] = "assignee" in evidence ? ["assigned", "unassigned"] : ["labeled", "unlabeled"];
  const wanted = "assignee" in evidence ? evidence.assignee.toLowerCase() : evidence.label;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.event !== added && event.event !== removed) continue;
    const named = "assignee" in evidence ? event.assignee?.login.toLowerCase() : event.label?.name;
    if (named !== wanted) continue;
    const actor = event.actor;
    // As the webhook guard reads a sender: a bot account (the App's own included) is no person.
    const byPerson =
      actor !== null &&
      actor.type !== "Bot" &&
      !actor.login.endsWith("[bot]") &&
      !event.performed_via_github_app;
    return { kind: event.event === added ? "added" : "removed", by: actor?.login ?? "ghost", byPerson };
  }
  return null;
}

function defuseMarkers(body: string): string {
  return body.replace(/<!--/g, "&lt;!--");
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
