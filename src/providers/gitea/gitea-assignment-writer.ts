// The Gitea side of a claim transition: the few REST calls it needs (Gitea has no batched mutation), counted.
import { sealClaimComment } from "../../domain/claim-marker.js";
import type { MarkerSeal } from "../../domain/marker-seal.js";
import {
  type AppliedWrite,
  type AssignmentProvider,
  GitHubWriteError,
  type SubjectRef,
  type TransitionWrite,
} from "../assignment-provider.js";
import {
  attentionLabelSpecs,
  defaultAttentionLabelNames,
  defaultLabelNames,
  type LabelSpec,
  managedLabelSpecs,
} from "../github/github-labels.js";
import { splitRepo } from "../github/split-repo.js";
import type { GiteaClient } from "./gitea-client.js";
import { GiteaRepositoryNames } from "./gitea-repository-names.js";
import { giteaStatusOf, type RequestCounter } from "./gitea-routes.js";
import { type GiteaIssue, type GiteaLabel, giteaPageSize } from "./gitea-schemas.js";
import { planIssueWrites } from "./plan-issue-writes.js";

export interface GiteaAssignmentWriterOptions {
  /** The client acting as the App's bot account. */
  client: GiteaClient;
  /** Signs the markers the App writes (invariant 11), with the same seal as on GitHub. */
  seal: MarkerSeal;
  /** The names repository ids have now, shared with the provider's reads (default: the writer's own). */
  names?: GiteaRepositoryNames;
}

/** Pages of a repository's labels read at most when looking for the managed ones. */
export const maxLabelPages = 10;

/**
 * `apply` and `ensureLabels` of the AssignmentProvider port. On Gitea `assign`/`unassign` are
 * logins (the identity provider answers the login as a user's `nodeId`), a comment's `nodeId` is
 * its numeric id as text, and `subjectNodeId` is not used: the issue is `ref`.
 */
export class GiteaAssignmentWriter implements Pick<AssignmentProvider, "apply" | "ensureLabels"> {
  /** Per repository (lower case): label name (lower case) -> id. */
  readonly #labelIds = new Map<string, Map<string, number>>();
  readonly #labelSpecs = new Map<string, LabelSpec>();
  /** Per issue (lower case `owner/name#n`): the end of the transition writing to it now. */
  readonly #writing = new Map<string, Promise<unknown>>();

  readonly #names: GiteaRepositoryNames;

  constructor(private readonly options: GiteaAssignmentWriterOptions) {
    this.#names = options.names ?? new GiteaRepositoryNames(options.client);
  }

  /**
   * One transition per issue at a time in this process: each plans from its own read of the issue
   * (Gitea has no batched mutation), so a transition reading while another's writes are still on
   * their way would plan from what those writes are about to change (a label it sees and so does not
   * add, removed a moment later). Across processes the write fence corrects instead.
   */
  apply(ref: SubjectRef, write: TransitionWrite): Promise<AppliedWrite> {
    const key = `${ref.repo}#${ref.issue}`.toLowerCase();
    const previous = this.#writing.get(key) ?? Promise.resolve();
    const mine = previous.catch(() => undefined).then(() => this.#apply(ref, write));
    const settled = mine.catch(() => undefined);
    this.#writing.set(key, settled);
    void settled.then(() => {
      if (this.#writing.get(key) === settled) this.#writing.delete(key);
    });
    return mine;
  }

  /**
   * Requests, in order: the issue (only when assignees or labels change; in one write-limiter turn
   * with the assignee list when that changes), the repository's labels (once per repository, when a label to add is not cached)
   * and a create per label missing there, one add of all new labels, one delete per removed
   * label, one edit per comment, the claim comment, one create per audit comment. A record's write
   * (`ref.repoId`) that reads nothing of the issue first reads the name of the repository id at most
   * every `rememberedRepositoryNameMs`; one whose issue read shows another repository reads it then,
   * and writes under it (gitea-repository-names.ts).
   * @throws GitHubWriteError (the port's error) naming the issue and Gitea's answer.
   */
  async #apply(ref: SubjectRef, write: TransitionWrite): Promise<AppliedWrite> {
    const counter: RequestCounter = { requests: 0 };
    const touchesIssue = [write.assign, write.unassign, write.addLabels, write.removeLabels].some(
      (list) => (list?.length ?? 0) > 0,
    );
    try {
      let at = ref;
      if (ref.repoId !== undefined && !touchesIssue)
        at = await this.#named(ref, ref.repoId, "current", counter);
      try {
        return await this.#applyAt(at, write, touchesIssue, counter);
      } catch (error) {
        if (!(error instanceof RepositoryMoved)) throw error;
        // The record's name is another repository's now: the write goes where its id is.
        const named = await this.#named(ref, error.repoId, "fresh", counter);
        return await this.#applyAt(named, write, touchesIssue, counter);
      }
    } catch (error) {
      this.#labelIds.delete(ref.repo.toLowerCase());
      if (error instanceof GitHubWriteError) throw error;
      const moved = error instanceof RepositoryMoved ? "the repository moved while it was written" : null;
      throw new GitHubWriteError(
        `failed to apply claim transition on ${ref.repo}#${ref.issue}: ${moved ?? messageOf(error)}`,
        moved ? 409 : giteaStatusOf(error),
        { cause: error },
      );
    }
  }

  /** `ref` under the name its repository id has; a 404 `GitHubWriteError` when the bot cannot see it. */
  async #named(ref: SubjectRef, repoId: number, how: "current" | "fresh", counter: RequestCounter) {
    const name = await this.#names[how](repoId, counter);
    if (name === null)
      throw new GitHubWriteError(
        `failed to apply claim transition on ${ref.repo}#${ref.issue}: no such repository`,
        404,
      );
    return { ...ref, repo: name };
  }

  async #applyAt(
    ref: SubjectRef,
    write: TransitionWrite,
    touchesIssue: boolean,
    counter: RequestCounter,
  ): Promise<AppliedWrite> {
    const { owner, name } = splitRepo(ref.repo);
    const client = this.options.client;
    const applied: AppliedWrite = { requests: 0 };
    if (touchesIssue) {
      const issue = await this.#readAndAssign(ref, write, counter);
      const plan = planIssueWrites(issue, write);
      if (plan.addLabels.length) {
        const ids = await this.#labelIdsFor(ref.repo, plan.addLabels, counter);
        await client.addIssueLabels(owner, name, ref.issue, ids, counter);
      }
      for (const id of plan.removeLabelIds) {
        // Gone since the read (a person, another replica): what the transition wanted.
        await client.removeIssueLabel(owner, name, ref.issue, id, counter).catch((error: unknown) => {
          if (giteaStatusOf(error) !== 404) throw error;
        });
      }
    }
    for (const edit of write.editComments ?? []) {
      const body = sealClaimComment(edit.body, this.options.seal);
      await client.editComment(owner, name, commentIdOf(edit.nodeId), body, counter);
    }
    if (write.createClaimComment !== undefined) {
      const body = sealClaimComment(write.createClaimComment, this.options.seal);
      const comment = await client.createComment(owner, name, ref.issue, body, counter);
      applied.claimComment = { nodeId: String(comment.id), databaseId: comment.id };
    }
    const added: string[] = [];
    for (const body of write.addComments ?? []) {
      // Audit comments never carry a marker: anything that could open one is defused.
      const comment = await client.createComment(owner, name, ref.issue, defuseMarkers(body), counter);
      added.push(String(comment.id));
    }
    if (added.length) applied.addedComments = added;
    applied.requests = counter.requests;
    return applied;
  }

  /**
   * The issue as read for the transition, and its new assignee list written when it changes. Gitea
   * replaces the whole list, so the read and the write share one turn of the write limiter: a
   * person assigned while this transition waited behind other writes is in the read and kept
   * (docs/reference/gitea-surfaces.md#assignees-and-request-timeouts). No read after the write could
   * find one assigned in the round trip between the two: Gitea answers the list as written, and
   * the drop shows only in the issue's timeline. Without an assignee change, a plain read.
   */
  async #readAndAssign(ref: SubjectRef, write: TransitionWrite, counter: RequestCounter) {
    const { owner, name } = splitRepo(ref.repo);
    if (!write.assign?.length && !write.unassign?.length)
      return this.#sameRepository(ref, await this.options.client.getIssue(owner, name, ref.issue, counter));
    return this.options.client.inWriteSlot(async (slot) => {
      const issue = this.#sameRepository(ref, await slot.getIssue(owner, name, ref.issue, counter));
      const assignees = planIssueWrites(issue, write).assignees;
      if (assignees) await slot.setAssignees(owner, name, ref.issue, assignees, counter);
      return issue;
    });
  }

  /** The issue, read under a record's name, when it is the record's repository's (else `RepositoryMoved`). */
  #sameRepository<T extends GiteaIssue>(ref: SubjectRef, issue: T): T {
    if (ref.repoId !== undefined && issue.repository.id !== ref.repoId) throw new RepositoryMoved(ref.repoId);
    this.#names.saw(issue.repository.id, issue.repository.full_name);
    return issue;
  }

  /** Creates each label the repository lacks (safe to repeat); one listing, one create per missing label. */
  async ensureLabels(ref: Omit<SubjectRef, "issue">, labels: LabelSpec[]): Promise<void> {
    for (const label of labels) this.#labelSpecs.set(label.name.toLowerCase(), label);
    const { owner, name } = splitRepo(ref.repo);
    try {
      await this.#labelIdsFor(
        ref.repo,
        labels.map((l) => l.name),
        { requests: 0 },
      );
    } catch (error) {
      throw new GitHubWriteError(
        `failed to ensure labels on ${owner}/${name}: ${messageOf(error)}`,
        giteaStatusOf(error),
        { cause: error },
      );
    }
  }

  /** Ids of the named labels, listing the repository's labels when one is not cached and creating the missing ones. */
  async #labelIdsFor(repo: string, names: string[], counter: RequestCounter): Promise<number[]> {
    const { owner, name } = splitRepo(repo);
    let cache = this.#labelIds.get(repo.toLowerCase());
    if (!cache || names.some((n) => !cache!.has(n.toLowerCase()))) {
      cache = new Map();
      for (let page = 1; page <= maxLabelPages; page++) {
        const labels: GiteaLabel[] = await this.options.client.listLabels(owner, name, page, counter);
        for (const label of labels)
          if (!cache.has(label.name.toLowerCase())) cache.set(label.name.toLowerCase(), label.id);
        if (labels.length < giteaPageSize) break;
      }
      this.#labelIds.set(repo.toLowerCase(), cache);
    }
    const ids: number[] = [];
    for (const label of names) {
      let id = cache.get(label.toLowerCase());
      if (id === undefined) {
        id = (await this.options.client.createLabel(owner, name, this.#specOf(label), counter)).id;
        cache.set(label.toLowerCase(), id);
      }
      ids.push(id);
    }
    return ids;
  }

  /** The spec `ensureLabels` saw, else the managed or attention default, else grey. */
  #specOf(label: string): LabelSpec {
    const known = [
      ...managedLabelSpecs(defaultLabelNames),
      ...attentionLabelSpecs(defaultAttentionLabelNames),
    ];
    return (
      this.#labelSpecs.get(label.toLowerCase()) ??
      known.find((spec) => spec.name.toLowerCase() === label.toLowerCase()) ?? {
        name: label,
        color: "ededed",
        description: "",
      }
    );
  }
}

/** A Gitea comment's id, as `AppliedWrite.claimComment.nodeId` gave it to the core. */
export function commentIdOf(nodeId: string): number {
  if (!/^[1-9]\d{0,15}$/.test(nodeId))
    throw new TypeError(`not a Gitea comment id: ${JSON.stringify(nodeId)}`);
  return Number(nodeId);
}

function defuseMarkers(body: string): string {
  return body.replace(/<!--/g, "&lt;!--");
}

/** A read by a record's name answered another repository: its own name is read, once. */
class RepositoryMoved extends Error {
  constructor(readonly repoId: number) {
    super(`repository ${repoId} is no longer under the name its record keeps`);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
