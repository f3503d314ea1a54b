// The Gitea (and Forgejo) REST v1 shapes the client reads and sends, as Gitea's swagger defines them (zod).
import { z } from "zod";

/** Gitea's own users have ids that are not positive (its ghost -1, its Actions user -2): see gitea-person.ts. */
export const GiteaUser = z.object({ id: z.number().int(), login: z.string().min(1) });
export type GiteaUser = z.infer<typeof GiteaUser>;
export const GiteaLabel = z.object({ id: z.number().int().positive(), name: z.string() });
export type GiteaLabel = z.infer<typeof GiteaLabel>;
export const GiteaIssue = z.object({
  number: z.number().int().positive(),
  state: z.enum(["open", "closed"]),
  assignees: z.array(GiteaUser).nullish(),
  labels: z.array(GiteaLabel).nullish(),
  /** `RepositoryMeta`: which repository the issue is in, whatever name it was asked under. */
  repository: z.object({ id: z.number().int().positive(), full_name: z.string() }),
});
export type GiteaIssue = z.infer<typeof GiteaIssue>;
/** An issue as the reads take it: the write fields, and what a snapshot shows (`RepositoryMeta` for its repository). */
export const GiteaIssueRead = GiteaIssue.extend({
  id: z.number().int().positive(),
  title: z.string(),
  /** When it was opened (`queue.order`); optional so a read never fails for want of it. */
  created_at: z.string().optional(),
  updated_at: z.string(),
  /** How many comments the issue has: a listing reads the comments of an issue only when it has some. */
  comments: z.number().int().nonnegative(),
  /** Set on a pull request (Gitea's issue routes serve both). */
  pull_request: z.object({}).passthrough().nullish(),
});
export type GiteaIssueRead = z.infer<typeof GiteaIssueRead>;
/** An issue another one links to (a dependency): its state and where it lives. */
export const GiteaLinkedIssue = z.object({
  number: z.number().int().positive(),
  state: z.enum(["open", "closed"]),
  repository: z.object({ id: z.number().int().positive(), full_name: z.string() }),
});
export type GiteaLinkedIssue = z.infer<typeof GiteaLinkedIssue>;
export const GiteaComment = z.object({ id: z.number().int().positive() });
/** A comment as the marker search reads it: who wrote it decides whether its marker can be trusted. */
export const GiteaIssueComment = GiteaComment.extend({
  body: z.string(),
  user: GiteaUser.nullish(),
});
export type GiteaIssueComment = z.infer<typeof GiteaIssueComment>;
/** One comment as `GET …/issues/comments/{id}` answers it: `issue_url` names its issue (empty on a PR's). */
export const GiteaCommentRead = GiteaIssueComment.extend({
  issue_url: z.string().nullish(),
  html_url: z.string().nullish(),
});
export type GiteaCommentRead = z.infer<typeof GiteaCommentRead>;
export const GiteaRepository = z.object({ id: z.number().int().positive(), full_name: z.string() });
/** A repository of `GET /user/repos` with the bot account's rights on it (`Permission`). */
export const GiteaOwnRepository = GiteaRepository.extend({
  permissions: z.object({ admin: z.boolean() }).nullish(),
});
export type GiteaOwnRepository = z.infer<typeof GiteaOwnRepository>;
/** A repository webhook (`Hook`): Gitea never answers its secret. */
export const GiteaHook = z.object({
  id: z.number().int().positive(),
  type: z.string(),
  active: z.boolean(),
  events: z.array(z.string()).nullish(),
  config: z.record(z.string(), z.string()).nullish(),
  /** A glob of the branches whose pushes (and pull requests into them) are delivered; empty or `*`: all. */
  branch_filter: z.string().nullish(),
});
export type GiteaHook = z.infer<typeof GiteaHook>;
/** What `create-hook` sends (`CreateHookOption`) and `edit-hook` (`EditHookOption`, without `type`). */
export interface GiteaHookOption {
  type: "gitea";
  active: boolean;
  events: string[];
  /** `*`: every branch's push and pull request events. */
  branch_filter: string;
  /** `url`, `content_type` and `secret`. */
  config: Record<string, string>;
}
export const GiteaPermission = z.object({ permission: z.string(), role_name: z.string().optional() });
export const GiteaCommitStatus = z.object({
  id: z.number().int(),
  context: z.string(),
  status: z.string(),
  description: z.string().nullish(),
  target_url: z.string().nullish(),
  /** Who wrote it: anyone with write access can post a status under any context. */
  creator: GiteaUser.nullish(),
});
export type GiteaCommitStatus = z.infer<typeof GiteaCommitStatus>;
/** A pull request as the fence reads it (`PullRequest`, its head a `PRBranchInfo`). */
export const GiteaPullRequest = z.object({
  number: z.number().int().positive(),
  state: z.enum(["open", "closed"]),
  title: z.string(),
  body: z.string().nullish(),
  user: GiteaUser.nullish(),
  /** `repo_id`: the repository the head branch lives in (a fork's differs from the base's). */
  head: z.object({ ref: z.string(), sha: z.string(), repo_id: z.number().int().nullish() }),
});
export type GiteaPullRequest = z.infer<typeof GiteaPullRequest>;
/** A commit of a pull request (`Commit`), its message in `commit` (`RepoCommit`). */
export const GiteaPullCommit = z.object({
  sha: z.string(),
  commit: z.object({ message: z.string() }),
});

/** A branch (`Branch`) and its head commit (`PayloadCommit`): when it last received a commit. */
export const GiteaBranch = z.object({
  name: z.string(),
  commit: z.object({ id: z.string(), timestamp: z.string() }),
});
export type GiteaBranch = z.infer<typeof GiteaBranch>;

/**
 * One entry of an issue's timeline (`TimelineComment`): `type` `assignees` (with `assignee` and
 * `removed_assignee`) or `label` (with `label`, `body` "1" when added), `user` who acted. The users
 * keep Gitea's own ids: its ghost (a deleted account) and Actions users have negative ones.
 */
export const GiteaTimelineEntry = z.object({
  id: z.number().int(),
  type: z.string(),
  body: z.string().nullish(),
  user: z.object({ id: z.number().int(), login: z.string() }).nullish(),
  assignee: z.object({ id: z.number().int(), login: z.string() }).nullish(),
  removed_assignee: z.boolean().nullish(),
  label: z.object({ name: z.string() }).nullish(),
});
export type GiteaTimelineEntry = z.infer<typeof GiteaTimelineEntry>;

/** Gitea's page size ceiling (`[api] MAX_RESPONSE_ITEMS` defaults to 50). */
export const giteaPageSize = 50;
