// The GitHub side of a claim: one GraphQL read per subject and one batched GraphQL mutation per transition.
import { sealClaimComment, verifyClaimMarker } from "../../lease/claim-comment.js";
import type { MarkerSeal } from "../../lease/marker-seal.js";
import { redactSecrets } from "../../redact-secrets.js";
import {
  type AppliedWrite,
  type AssignmentProvider,
  type ClaimCommentEvidence,
  GitHubWriteError,
  type OpenIssuePage,
  type SubjectRef,
  type SubjectSnapshot,
  type TransitionWrite,
} from "../assignment-provider.js";
import {
  buildTransitionMutation,
  type ClaimIssueNode,
  MAX_ADDED_COMMENTS,
  MAX_EDITED_COMMENTS,
  OPEN_ISSUES_QUERY,
  type OpenIssuesResponse,
  type OpenIssuesVariables,
  type PullRequestNode,
  RESOLVE_LABEL_SLOTS,
  RESOLVE_LABELS_QUERY,
  type ResolveLabelsResponse,
  resolveLabelsVariables,
  SUBJECT_COMMENTS_QUERY,
  SUBJECT_STATUS_QUERY,
  type SubjectCommentsResponse,
  type SubjectStatusResponse,
  type SubjectStatusVariables,
  type TransitionResponse,
} from "./graphql/index.js";
import { type GitHubRequestKind, httpStatusOf, type OctokitLike } from "./octokit-like.js";
import { splitRepo } from "./split-repo.js";

export type RepoRef = Omit<SubjectRef, "issue">;

export interface ManagedLabelNames {
  claimed: string;
  stale: string;
}

export interface LabelSpec {
  name: string;
  color: string;
  description: string;
}

export const defaultLabelNames: ManagedLabelNames = { claimed: "agent:claimed", stale: "agent:stale" };

/** Colours and descriptions of the managed labels, for `ensureLabels` and for labels `apply` must create. */
export function managedLabelSpecs(names: ManagedLabelNames): LabelSpec[] {
  return [
    { name: names.claimed, color: "1d76db", description: "A live agent claim holds this issue (claim-hold)" },
    {
      name: names.stale,
      color: "fbca04",
      description: "The agent holding this issue stopped heartbeating (claim-hold)",
    },
  ];
}

export interface GitHubAssignmentProviderOptions {
  /** An installation client (Probot's `app.auth(installationId)`). */
  octokitFor: (installationId: number) => Promise<OctokitLike>;
  /** The managed label names, fixed or per repository (`labels` in `.github/claim-hold.yml`). */
  labels?: ManagedLabelNames | ((ref: RepoRef) => ManagedLabelNames | Promise<ManagedLabelNames>);
  /** Called once for every HTTP request the provider makes (metrics, tests). */
  onRequest?: (kind: GitHubRequestKind) => void;
  /** Signs the markers the App writes and checks the ones it reads (invariant 11). */
  seal: MarkerSeal;
  /** Called for every marker read that is not trusted (unsigned, forged, misplaced, foreign). */
  onMarkerRejected?: (reason: string) => void;
}

/** Pages of 100 earlier comments recovery reads at most before it calls the claim state unknown. */
export const maxRecoveryPages = 100;

interface RequestCounter {
  requests: number;
}

export class GitHubAssignmentProvider implements AssignmentProvider {
  /** HTTP requests made so far, all calls together. */
  requests = 0;
  /** Per repository (`installationId:owner/name`, lower case): label name (lower case) -> node id. */
  readonly #labelIds = new Map<string, Map<string, string>>();
  /** Label specs seen by `ensureLabels`, so a label `apply` has to create gets the same colour. */
  readonly #labelSpecs = new Map<string, LabelSpec>();

  constructor(private readonly options: GitHubAssignmentProviderOptions) {}

  async status(ref: SubjectRef, options: { branch?: string } = {}): Promise<SubjectSnapshot | null> {
    const { owner, name } = splitRepo(ref.repo);
    const labels = await this.#labelNames(ref);
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

    const cache = this.#labelCache(ref);
    for (const label of [repository.claimedLabel, repository.staleLabel]) {
      if (label) cache.set(label.name.toLowerCase(), label.id);
    }
    const snapshot = this.#snapshotOf(ref, repository, issue);
    await this.#searchEarlierComments(octokit, ref, issue, snapshot);
    snapshot.openPullRequests = uniquePullRequests([
      ...(issue.closedByPullRequestsReferences?.nodes ?? []),
      ...(repository.branchPullRequests?.nodes ?? []),
    ]);
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
    const managed = new Set(Object.values(await this.#labelNames(ref)).map((l) => l.toLowerCase()));
    const issues: SubjectSnapshot[] = [];
    for (const issue of repository.issues.nodes ?? []) {
      if (!issue) continue;
      const snapshot = this.#snapshotOf({ ...ref, issue: issue.number }, repository, issue);
      // Only a subject that shows a claim needs its claim comment, however far back it is.
      if (snapshot.labels.some((l) => managed.has(l.toLowerCase()))) {
        await this.#searchEarlierComments(octokit, { ...ref, issue: issue.number }, issue, snapshot);
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

  #snapshotOf(
    ref: SubjectRef,
    repository: { databaseId: number; nameWithOwner: string },
    issue: ClaimIssueNode,
  ): SubjectSnapshot {
    const cache = this.#labelCache(ref);
    for (const label of issue.labels?.nodes ?? []) {
      if (label) cache.set(label.name.toLowerCase(), label.id);
    }
    const { claimComments, rejectedMarkers, rejectedAfterTrusted, auditComments } = this.#claimCommentsOf(
      issue.comments,
      { repo: repository.nameWithOwner, issue: ref.issue },
    );
    return {
      repoId: repository.databaseId,
      repo: repository.nameWithOwner,
      issue: ref.issue,
      nodeId: issue.id,
      title: issue.title,
      state: issue.state === "OPEN" ? "open" : "closed",
      assignees: (issue.assignees.nodes ?? []).flatMap((a) => (a ? [{ login: a.login, nodeId: a.id }] : [])),
      labels: (issue.labels?.nodes ?? []).flatMap((l) => (l ? [l.name] : [])),
      claimComments,
      rejectedMarkers,
      rejectedAfterTrusted,
      auditComments,
      markerSearch:
        claimComments.length > 0 || !issue.comments.pageInfo?.hasPreviousPage ? "complete" : "truncated",
      openPullRequests: uniquePullRequests(issue.closedByPullRequestsReferences?.nodes ?? []),
      branchCommittedAt: null,
      updatedAt: Date.parse(issue.updatedAt),
    };
  }

  /**
   * The trusted claim comments of a page, oldest first; every other marker is counted and ignored.
   * A marker names its subject as `owner/name#n` at the time it was written: one of this issue's
   * number is this subject's (the repository may have been renamed since) and is read under the
   * current name; another number's (an issue transferred here) is not this subject's evidence.
   */
  #claimCommentsOf(
    comments: ClaimIssueNode["comments"],
    subject: { repo: string; issue: number },
  ): {
    claimComments: ClaimCommentEvidence[];
    rejectedMarkers: number;
    rejectedAfterTrusted: number;
    auditComments: number;
  } {
    const claimComments: ClaimCommentEvidence[] = [];
    let rejectedMarkers = 0;
    let rejectedAfterTrusted = 0;
    let auditComments = 0;
    for (const comment of comments.nodes ?? []) {
      if (!comment) continue;
      const parsed = verifyClaimMarker(comment.body, this.options.seal);
      if (parsed.kind === "none") {
        if (comment.viewerDidAuthor && isClaimAuditComment(comment.body)) auditComments++;
        continue;
      }
      // Only the App's own comments can carry evidence; anyone can paste a marker into theirs.
      if (parsed.kind === "marker" && comment.viewerDidAuthor && comment.databaseId !== null) {
        if (!parsed.marker.subject.endsWith(`#${subject.issue}`)) continue;
        const marker = { ...parsed.marker, subject: `${subject.repo}#${subject.issue}` };
        claimComments.push({ nodeId: comment.id, databaseId: comment.databaseId, marker });
        rejectedAfterTrusted = 0;
        continue;
      }
      const reason = parsed.kind === "rejected" ? parsed.reason : "marker outside the App's comments";
      if (comment.viewerDidAuthor) {
        rejectedMarkers++;
        rejectedAfterTrusted++;
      }
      this.options.onMarkerRejected?.(reason);
    }
    return { claimComments, rejectedMarkers, rejectedAfterTrusted, auditComments };
  }

  /**
   * Invariant 12: when the page read holds no trusted claim comment but the thread goes further
   * back, pages back (100 comments a request) until it meets one or the thread's start. Past
   * `maxRecoveryPages` the search stops and the snapshot says `truncated` (claim state unknown).
   */
  async #searchEarlierComments(
    octokit: OctokitLike,
    ref: SubjectRef,
    issue: ClaimIssueNode,
    snapshot: SubjectSnapshot,
  ): Promise<void> {
    let pageInfo = issue.comments.pageInfo;
    const { owner, name } = splitRepo(ref.repo);
    for (let page = 0; snapshot.claimComments.length === 0 && pageInfo?.hasPreviousPage; page++) {
      if (page >= maxRecoveryPages || !pageInfo.startCursor) return;
      const before = pageInfo.startCursor;
      const data = await this.#send({ requests: 0 }, "subject-comments", () =>
        octokit.graphql<SubjectCommentsResponse>(SUBJECT_COMMENTS_QUERY, {
          owner,
          name,
          number: ref.issue,
          before,
        }),
      );
      const comments = data.repository?.issue?.comments;
      if (!comments) return;
      const found = this.#claimCommentsOf(comments, snapshot);
      snapshot.claimComments = found.claimComments;
      snapshot.rejectedMarkers += found.rejectedMarkers;
      snapshot.auditComments += found.auditComments;
      // Rejected markers of this page that come after its newest trusted one are older than the
      // later pages' rejected ones: all of those stay "after the latest trusted".
      snapshot.rejectedAfterTrusted += found.rejectedAfterTrusted;
      pageInfo = comments.pageInfo;
    }
    snapshot.markerSearch = "complete";
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
      const ids = await this.#resolveLabelIds(octokit, ref, [...addLabels, ...removeLabels], counter);
      for (const label of addLabels) {
        if (!ids.has(label.toLowerCase())) {
          ids.set(label.toLowerCase(), await this.#createLabel(octokit, ref, label, counter));
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

      const data = await this.#send(counter, "apply-transition", () =>
        octokit.graphql<TransitionResponse>(mutation.document, mutation.variables),
      );
      if (write.createClaimComment === undefined) return { requests: counter.requests };
      const node = data.claimComment?.commentEdge?.node;
      if (!node || node.databaseId === null) {
        throw new GitHubWriteError(
          `failed to apply claim transition on ${owner}/${name}#${ref.issue}: GitHub did not return the new claim comment`,
        );
      }
      return { claimComment: { nodeId: node.id, databaseId: node.databaseId }, requests: counter.requests };
    } catch (error) {
      if (error instanceof GitHubWriteError) throw error;
      // A label deleted and re-created behind the cache's back fails the write: forget the ids.
      this.#labelIds.delete(repoKey(ref));
      throw new GitHubWriteError(
        `failed to apply claim transition on ${owner}/${name}#${ref.issue}: ${describeGitHubError(error)}`,
        httpStatusOf(error),
        { cause: error },
      );
    }
  }

  async ensureLabels(ref: RepoRef, labels: LabelSpec[]): Promise<void> {
    const octokit = await this.options.octokitFor(ref.installationId);
    const { owner, name: repo } = splitRepo(ref.repo);
    const counter: RequestCounter = { requests: 0 };
    for (const label of labels) {
      this.#labelSpecs.set(label.name.toLowerCase(), label);
      try {
        const found = await this.#getLabel(octokit, ref, label.name, counter);
        const nodeId = found ?? (await this.#createLabel(octokit, ref, label.name, counter));
        this.#labelCache(ref).set(label.name.toLowerCase(), nodeId);
      } catch (error) {
        if (error instanceof GitHubWriteError) throw error;
        throw new GitHubWriteError(
          `failed to ensure label "${label.name}" on ${owner}/${repo}: ${describeGitHubError(error)}`,
          httpStatusOf(error),
          { cause: error },
        );
      }
    }
  }

  async #labelNames(ref: RepoRef): Promise<ManagedLabelNames> {
    const labels = this.options.labels ?? defaultLabelNames;
    return typeof labels === "function" ? labels(ref) : labels;
  }

  #labelCache(ref: RepoRef): Map<string, string> {
    const key = repoKey(ref);
    let cache = this.#labelIds.get(key);
    if (!cache) {
      cache = new Map();
      this.#labelIds.set(key, cache);
    }
    return cache;
  }

  /** Name (lower case) -> node id for every given label that exists, looking up only the uncached ones. */
  async #resolveLabelIds(
    octokit: OctokitLike,
    ref: RepoRef,
    names: string[],
    counter: RequestCounter,
  ): Promise<Map<string, string>> {
    const cache = this.#labelCache(ref);
    const missing = unique(names.map((n) => n.toLowerCase())).filter((n) => !cache.has(n));
    const { owner, name } = splitRepo(ref.repo);
    for (let start = 0; start < missing.length; start += RESOLVE_LABEL_SLOTS) {
      const chunk = missing.slice(start, start + RESOLVE_LABEL_SLOTS);
      const data = await this.#send(counter, "resolve-labels", () =>
        octokit.graphql<ResolveLabelsResponse>(
          RESOLVE_LABELS_QUERY,
          resolveLabelsVariables(owner, name, chunk),
        ),
      );
      chunk.forEach((requested, slot) => {
        const label = data.repository?.[`label${slot as 0 | 1 | 2 | 3}`];
        if (label) cache.set(requested, label.id);
      });
    }
    const ids = new Map<string, string>();
    for (const n of names) {
      const id = cache.get(n.toLowerCase());
      if (id) ids.set(n.toLowerCase(), id);
    }
    return ids;
  }

  /** The label's node id, or null when the repository has no such label. */
  async #getLabel(octokit: OctokitLike, ref: RepoRef, label: string, counter: RequestCounter) {
    const { owner, name: repo } = splitRepo(ref.repo);
    try {
      const response = await this.#send(counter, "get-label", () =>
        octokit.request("GET /repos/{owner}/{repo}/labels/{name}", { owner, repo, name: label }),
      );
      return nodeIdOf(response.data);
    } catch (error) {
      if (httpStatusOf(error) === 404) return null;
      throw error;
    }
  }

  async #createLabel(octokit: OctokitLike, ref: RepoRef, label: string, counter: RequestCounter) {
    const { owner, name: repo } = splitRepo(ref.repo);
    const spec = this.#labelSpecs.get(label.toLowerCase()) ??
      managedLabelSpecs(await this.#labelNames(ref)).find(
        (s) => s.name.toLowerCase() === label.toLowerCase(),
      ) ?? {
        name: label,
        color: "ededed",
        description: "",
      };
    try {
      const response = await this.#send(counter, "create-label", () =>
        octokit.request("POST /repos/{owner}/{repo}/labels", {
          owner,
          repo,
          name: label,
          color: spec.color.replace(/^#/, ""),
          description: spec.description,
        }),
      );
      const nodeId = nodeIdOf(response.data);
      this.#labelCache(ref).set(label.toLowerCase(), nodeId);
      return nodeId;
    } catch (error) {
      // 422: someone created it since we looked (another replica, a human); use theirs.
      if (httpStatusOf(error) !== 422) throw error;
      const existing = await this.#getLabel(octokit, ref, label, counter);
      if (!existing) throw error;
      this.#labelCache(ref).set(label.toLowerCase(), existing);
      return existing;
    }
  }

  async #send<T>(counter: RequestCounter, kind: GitHubRequestKind, call: () => Promise<T>): Promise<T> {
    counter.requests++;
    this.requests++;
    this.options.onRequest?.(kind);
    return call();
  }
}

/** The App's audit comments of a claim's life (supersede, stale, reap, release, revoke, /reclaim). */
const auditHeadlines = ["↪️ Superseded", "⏸️ No heartbeat", "🧹 Reaped", "📝 ", "⛔ ", "🔁 "];

function isClaimAuditComment(body: string): boolean {
  return auditHeadlines.some((headline) => body.startsWith(headline));
}

function defuseMarkers(body: string): string {
  return body.replace(/<!--/g, "&lt;!--");
}

function repoKey(ref: RepoRef): string {
  return `${ref.installationId}:${ref.repo.toLowerCase()}`;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function nodeIdOf(data: unknown): string {
  const nodeId = (data as { node_id?: unknown } | null)?.node_id;
  if (typeof nodeId !== "string") throw new Error("GitHub returned a label without a node_id");
  return nodeId;
}

interface GraphqlErrorLike {
  message?: unknown;
  type?: unknown;
  path?: unknown;
}

function graphqlErrorsOf(error: unknown): GraphqlErrorLike[] | null {
  if (typeof error !== "object" || error === null || !("errors" in error)) return null;
  const errors = (error as { errors: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 ? (errors as GraphqlErrorLike[]) : null;
}

function onlyNotFoundErrors(error: unknown): boolean {
  return graphqlErrorsOf(error)?.every((e) => e.type === "NOT_FOUND") ?? false;
}

/** One line for an error message: each GraphQL error with the mutation field it hit, or the HTTP status. */
function uniquePullRequests(nodes: (PullRequestNode | null)[]) {
  const byNumber = new Map<number, { number: number; headRef: string; author: string }>();
  for (const node of nodes) {
    if (node)
      byNumber.set(node.number, {
        number: node.number,
        headRef: node.headRefName,
        author: node.author?.login ?? "ghost",
      });
  }
  return [...byNumber.values()];
}

export function describeGitHubError(error: unknown): string {
  const errors = graphqlErrorsOf(error);
  if (errors) {
    return redactSecrets(
      errors
        .map((e) => {
          const field = Array.isArray(e.path) && typeof e.path[0] === "string" ? `${e.path[0]}: ` : "";
          return `${field}${String(e.message ?? e.type ?? "unknown error")}`;
        })
        .join("; "),
    );
  }
  const status = httpStatusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return redactSecrets(status ? `HTTP ${status}: ${message}` : message);
}
