// GraphQL `MergeQueue` and `MergeQueueEntry` over the simulator's queues (`Repository.mergeQueue(branch:)`).

import type { SimQueueEntry } from "../merge-queue.js";
import type { SimRepo } from "../sim-types.js";
import {
  actorView,
  commitView,
  connection,
  type GraphqlContext,
  issueView,
  repoView,
} from "./graphql-views.js";

type Args = Record<string, unknown>;

/** The queue of `branch` (default: the default branch); null, like GitHub, for a branch that does not exist. */
export function mergeQueueView(ctx: GraphqlContext, repo: SimRepo, args: Args) {
  const { state } = ctx;
  const branch = typeof args.branch === "string" ? args.branch : repo.defaultBranch;
  if (!repo.branches.has(branch)) return null;
  const path = `/${state.fullName(repo)}/queue/${encodeURIComponent(branch)}`;
  const queue = () => state.mergeQueues.entries(repo, branch);
  const view = {
    __typename: "MergeQueue",
    id: `MQ_${Buffer.from(`queue:${repo.id}:${branch}`).toString("base64url")}`,
    resourcePath: path,
    url: `${state.urls.web}${path}`,
    configuration: null,
    nextEntryEstimatedTimeToMerge: null,
    repository: () => repoView(ctx, repo),
    entries: (entryArgs: Args) => {
      const entries = queue();
      return connection(entries, entryArgs, (entry) => entryView(entry, entries.indexOf(entry) + 1));
    },
  };
  const entryView = (entry: SimQueueEntry, position: number) => ({
    __typename: "MergeQueueEntry",
    id: `MQE_${Buffer.from(`entry:${repo.id}:${entry.id}`).toString("base64url")}`,
    position,
    state: "AWAITING_CHECKS",
    enqueuedAt: entry.enqueuedAt,
    enqueuer: actorView(ctx, state.userById(entry.enqueuerId)),
    estimatedTimeToMerge: null,
    jump: false,
    solo: false,
    headCommit: commitView(ctx, repo, entry.group.headSha),
    baseCommit: commitView(ctx, repo, entry.group.baseSha),
    pullRequest: issueView(ctx, state.issues.get(entry.pullIssueId)!),
    mergeQueue: () => view,
  });
  return view;
}
