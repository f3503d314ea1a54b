// The simulator's merge queues: entries per base branch, a merge group built for each, and the `merge_group` webhooks.
//
// As GitHub does it: each entry's merge group is a commit on `gh-readonly-queue/<base>/pr-<N>-<sha>`
// holding the base branch, every entry ahead of it and its own PR (each group stacked on the one
// ahead: its `base_sha` is that group's head). `merge_group.checks_requested` names only the group's
// head and base — never its pull requests; GitHub's GraphQL `Repository.mergeQueue(branch:)` lists
// the entries, each with its `position`, `headCommit` (the group's head) and `pullRequest`.
// Removing an entry destroys its group (`dequeued`) and rebuilds those behind it (`invalidated`,
// then a new group and a new `checks_requested`); merging the head entry moves the base branch to
// its group's head and closes its PR as merged.
import { createHash } from "node:crypto";
import { z } from "zod";
import type { SimIssue, SimRepo, SimUser } from "./sim-types.js";

/** What the queues need of the simulator's state (kept narrow: the state holds the queues). */
export interface QueueHost {
  timestamp(): string;
  requireIssue(repo: SimRepo, number: number): SimIssue;
  userById(id: number): SimUser;
  closePull(issue: SimIssue, sender: SimUser, merge: boolean): void;
  emitRepositoryEvent(repo: SimRepo, event: string, sender: SimUser, fields: Record<string, unknown>): void;
}

export const EnqueueAction = z.strictObject({
  repo: z.string(),
  /** Pull requests to add, in queue order. */
  pulls: z.array(z.number().int().positive()).min(1),
  login: z.string(),
});
export type EnqueueAction = z.infer<typeof EnqueueAction>;

export const DequeueAction = z.strictObject({
  repo: z.string(),
  number: z.number().int().positive(),
  login: z.string(),
});
export type DequeueAction = z.infer<typeof DequeueAction>;

export const MergeHeadAction = z.strictObject({
  repo: z.string(),
  /** The queue's base branch (default: the repository's default branch). */
  base: z.string().optional(),
  login: z.string(),
});
export type MergeHeadAction = z.infer<typeof MergeHeadAction>;

/** One merge group as GitHub names it. */
export interface SimMergeGroup {
  headSha: string;
  /** `refs/heads/gh-readonly-queue/<base>/pr-<N>-<parent sha>`. */
  headRef: string;
  /** The group's parent commit: the base branch's head, or the head of the group ahead. */
  baseSha: string;
  baseRef: string;
}

export interface SimQueueEntry {
  id: number;
  pullIssueId: number;
  number: number;
  enqueuedAt: string;
  enqueuerId: number;
  group: SimMergeGroup;
}

/** Every repository's queues: `<repo id>:<base branch>` → entries, head of the queue first. */
export class SimMergeQueues {
  readonly queues = new Map<string, SimQueueEntry[]>();
  #builds = 0;
  #nextId = 1;

  clear(): void {
    this.queues.clear();
    this.#builds = 0;
    this.#nextId = 1;
  }

  entries(repo: SimRepo, base: string): SimQueueEntry[] {
    return this.queues.get(`${repo.id}:${base}`) ?? [];
  }

  /** Adds each pull request at the tail of its base branch's queue and builds its group. */
  enqueue(state: QueueHost, repo: SimRepo, numbers: number[], sender: SimUser): SimMergeGroup[] {
    const built: SimMergeGroup[] = [];
    for (const number of numbers) {
      const issue = state.requireIssue(repo, number);
      if (!issue.pull || issue.state !== "open") throw new Error(`#${number} is not an open pull request`);
      const base = issue.pull.baseRef;
      const queue = this.#queue(repo, base);
      if (queue.some((entry) => entry.number === number)) throw new Error(`#${number} is already queued`);
      const entry: SimQueueEntry = {
        id: this.#nextId++,
        pullIssueId: issue.id,
        number,
        enqueuedAt: state.timestamp(),
        enqueuerId: sender.id,
        group: this.#build(state, repo, issue, base, queue.at(-1)?.group.headSha),
      };
      queue.push(entry);
      this.#requestChecks(state, repo, entry, sender);
      built.push(entry.group);
    }
    return built;
  }

  /** Removes a pull request from its queue; the groups behind it are rebuilt. */
  dequeue(state: QueueHost, repo: SimRepo, number: number, sender: SimUser): SimMergeGroup[] {
    for (const queue of this.#queuesOf(repo)) {
      const index = queue.findIndex((entry) => entry.number === number);
      if (index < 0) continue;
      const [removed] = queue.splice(index, 1);
      this.#destroy(state, repo, removed!, "dequeued", sender);
      return this.#rebuildFrom(state, repo, queue, index, sender);
    }
    throw new Error(`#${number} is not in a merge queue`);
  }

  /** Merges the head of the queue: the base branch moves to its group's head, its PR closes merged. */
  mergeHead(state: QueueHost, repo: SimRepo, base: string, sender: SimUser): SimQueueEntry {
    const queue = this.#queue(repo, base);
    const head = queue.shift();
    if (!head) throw new Error(`the merge queue of ${base} is empty`);
    const issue = state.requireIssue(repo, head.number);
    state.closePull(issue, sender, true);
    repo.branches.set(base, head.group.headSha);
    this.#destroy(state, repo, head, "merged", sender);
    return head;
  }

  #queue(repo: SimRepo, base: string): SimQueueEntry[] {
    const key = `${repo.id}:${base}`;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = [];
      this.queues.set(key, queue);
    }
    return queue;
  }

  #queuesOf(repo: SimRepo): SimQueueEntry[][] {
    return [...this.queues.entries()].filter(([key]) => key.startsWith(`${repo.id}:`)).map(([, q]) => q);
  }

  #build(
    state: QueueHost,
    repo: SimRepo,
    issue: SimIssue,
    base: string,
    parent: string | undefined,
  ): SimMergeGroup {
    const pull = issue.pull!;
    const baseSha = parent ?? repo.branches.get(base) ?? pull.baseSha;
    const headSha = createHash("sha1")
      .update(`merge-group:${repo.id}:${base}:${issue.number}:${++this.#builds}`)
      .digest("hex");
    const branch = `gh-readonly-queue/${base}/pr-${issue.number}-${baseSha}`;
    repo.commits.set(headSha, {
      sha: headSha,
      message: `Merge pull request #${issue.number} from ${repo.ownerLogin}/${pull.headRef}\n\n${issue.title}`,
      authorLogin: state.userById(issue.authorId).login,
      timestamp: state.timestamp(),
      added: [],
      removed: [],
      modified: [],
    });
    repo.branches.set(branch, headSha);
    return { headSha, headRef: `refs/heads/${branch}`, baseSha, baseRef: `refs/heads/${base}` };
  }

  #rebuildFrom(
    state: QueueHost,
    repo: SimRepo,
    queue: SimQueueEntry[],
    index: number,
    sender: SimUser,
  ): SimMergeGroup[] {
    const rebuilt: SimMergeGroup[] = [];
    for (let i = index; i < queue.length; i++) {
      const entry = queue[i]!;
      this.#destroy(state, repo, entry, "invalidated", sender);
      const issue = state.requireIssue(repo, entry.number);
      const base = entry.group.baseRef.replace(/^refs\/heads\//, "");
      entry.group = this.#build(state, repo, issue, base, queue[i - 1]?.group.headSha);
      this.#requestChecks(state, repo, entry, sender);
      rebuilt.push(entry.group);
    }
    return rebuilt;
  }

  #requestChecks(state: QueueHost, repo: SimRepo, entry: SimQueueEntry, sender: SimUser): void {
    state.emitRepositoryEvent(repo, "merge_group", sender, {
      action: "checks_requested",
      merge_group: renderMergeGroup(state, repo, entry.group),
    });
  }

  #destroy(
    state: QueueHost,
    repo: SimRepo,
    entry: SimQueueEntry,
    reason: "merged" | "invalidated" | "dequeued",
    sender: SimUser,
  ): void {
    repo.branches.delete(entry.group.headRef.replace(/^refs\/heads\//, ""));
    state.emitRepositoryEvent(repo, "merge_group", sender, {
      action: "destroyed",
      reason,
      merge_group: renderMergeGroup(state, repo, entry.group),
    });
  }
}

/** `merge_group` of the webhook payload (`@octokit/openapi-webhooks-types` `merge-group`). */
export function renderMergeGroup(state: QueueHost, repo: SimRepo, group: SimMergeGroup) {
  const commit = repo.commits.get(group.headSha);
  const login = commit?.authorLogin ?? repo.ownerLogin;
  const person = { name: login, email: `${login}@users.noreply.example` };
  return {
    head_sha: group.headSha,
    head_ref: group.headRef,
    base_sha: group.baseSha,
    base_ref: group.baseRef,
    head_commit: {
      id: group.headSha,
      tree_id: createHash("sha1").update(`tree:${group.headSha}`).digest("hex"),
      message: commit?.message ?? "",
      timestamp: commit?.timestamp ?? state.timestamp(),
      author: person,
      committer: person,
    },
  };
}
