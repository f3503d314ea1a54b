// The simulator's control inputs (TypeScript API and `/_sim/…` routes alike), validated at the HTTP boundary.
import { z } from "zod";

const login = z.string().min(1);
const fullName = z.string().regex(/^[^/\s]+\/[^/\s]+$/, "expected owner/name");
const role = z.enum(["admin", "maintain", "write", "triage", "read"]);

export const UserSeed = z.strictObject({
  login,
  id: z.number().int().positive().optional(),
  type: z.enum(["User", "Bot", "Organization"]).optional(),
  /** Personal access tokens that authenticate as this user (GET /user, GraphQL, REST). */
  tokens: z.array(z.string().min(1)).optional(),
});
export type UserSeed = z.infer<typeof UserSeed>;

export const IssueSeed = z.strictObject({
  number: z.number().int().positive().optional(),
  title: z.string().default("An issue"),
  body: z.string().optional(),
  /** Defaults to the repository's owner. */
  author: login.optional(),
  labels: z.array(z.string()).optional(),
  assignees: z.array(login).optional(),
  state: z.enum(["open", "closed"]).optional(),
  comments: z.array(z.strictObject({ author: login, body: z.string() })).optional(),
});
export type IssueSeed = z.input<typeof IssueSeed>;

export const LabelSeed = z.union([
  z.string(),
  z.strictObject({ name: z.string(), color: z.string().optional(), description: z.string().optional() }),
]);

export const RepoSeed = z.strictObject({
  fullName,
  id: z.number().int().positive().optional(),
  private: z.boolean().optional(),
  defaultBranch: z.string().optional(),
  /** Default-branch files, e.g. `{ ".github/claim-hold.yml": "…" }`. */
  files: z.record(z.string(), z.string()).optional(),
  labels: z.array(LabelSeed).optional(),
  /** login -> role; the owner is always admin. */
  collaborators: z.record(z.string(), role).optional(),
  issues: z.array(IssueSeed).optional(),
});
export type RepoSeed = z.input<typeof RepoSeed>;

export const InstallationSeed = z.strictObject({
  id: z.number().int().positive().optional(),
  /** Defaults to the owner of the first repository. */
  account: login.optional(),
  repos: z.array(fullName),
});
export type InstallationSeed = z.infer<typeof InstallationSeed>;

export const PullSeed = z.strictObject({
  repo: fullName,
  number: z.number().int().positive().optional(),
  title: z.string().default("A pull request"),
  body: z.string().optional(),
  author: login,
  head: z.string().min(1),
  base: z.string().optional(),
  draft: z.boolean().optional(),
  /** The head branch is in the author's fork of the repository (an outsider's PR, as on a public repository). */
  fork: z.boolean().optional(),
});
export type PullSeed = z.input<typeof PullSeed>;

export const SeedDocument = z.strictObject({
  users: z.array(UserSeed).optional(),
  repos: z.array(RepoSeed).optional(),
  /** Created after the repositories (each sends `installation.created`). */
  installations: z.array(InstallationSeed).optional(),
  pulls: z.array(PullSeed).optional(),
});
export type SeedDocument = z.input<typeof SeedDocument>;

export const CommentAction = z.strictObject({
  repo: fullName,
  issue: z.number().int().positive(),
  login,
  body: z.string(),
});
export type CommentAction = z.infer<typeof CommentAction>;

export const PushAction = z.strictObject({
  repo: fullName,
  branch: z.string().min(1),
  login,
  message: z.string().optional(),
  /** path -> new text (null deletes); applied to the repository's files on its default branch. */
  files: z.record(z.string(), z.string().nullable()).optional(),
});
export type PushAction = z.infer<typeof PushAction>;

export const IssueStateAction = z.strictObject({
  repo: fullName,
  issue: z.number().int().positive(),
  login,
  reason: z.enum(["completed", "not_planned"]).optional(),
});
export type IssueStateAction = z.infer<typeof IssueStateAction>;

export const AssignAction = z.strictObject({
  repo: fullName,
  issue: z.number().int().positive(),
  login,
  assignees: z.array(login).optional(),
  labels: z.array(z.string()).optional(),
});
export type AssignAction = z.infer<typeof AssignAction>;

/** Another issue, by number in the same repository or as `{ repo, issue }` anywhere. */
const IssueRef = z.union([
  z.number().int().positive(),
  z.strictObject({ repo: fullName, issue: z.number().int().positive() }),
]);
export type IssueRef = z.infer<typeof IssueRef>;

/** `issue` is (or with `remove`, is no longer) blocked by `blockedBy` (`issue_dependencies`). */
export const DependencyAction = z.strictObject({
  repo: fullName,
  issue: z.number().int().positive(),
  blockedBy: IssueRef,
  login,
  remove: z.boolean().optional(),
});
export type DependencyAction = z.infer<typeof DependencyAction>;

/** `subIssue` becomes (or with `remove`, stops being) a sub-issue of `parent` (`sub_issues`). */
export const SubIssueAction = z.strictObject({
  repo: fullName,
  parent: z.number().int().positive(),
  subIssue: IssueRef,
  login,
  remove: z.boolean().optional(),
  replaceParent: z.boolean().optional(),
});
export type SubIssueAction = z.infer<typeof SubIssueAction>;

export const PermissionAction = z.strictObject({ repo: fullName, login, role: role.nullable() });
export const FileAction = z.strictObject({
  repo: fullName,
  path: z.string().min(1),
  content: z.string().nullable(),
});
export const PullCloseAction = z.strictObject({
  repo: fullName,
  number: z.number().int().positive(),
  login,
  merge: z.boolean().optional(),
});
export const PullLinkAction = z.strictObject({
  repo: fullName,
  number: z.number().int().positive(),
  issue: z.number().int().positive(),
  /** false unlinks. */
  linked: z.boolean().optional(),
});
export const CheckRunAction = z.strictObject({
  repo: fullName,
  checkRunId: z.number().int().positive(),
  login,
});

export const FaultInput = z.strictObject({
  method: z.string().optional(),
  /** A route (`GET /repos/{owner}/{repo}/labels/{name}`) or a path glob (`/repos/*\/*\/labels/**`). */
  path: z.string().optional(),
  operation: z.string().optional(),
  mutation: z.string().optional(),
  times: z.number().int().positive().optional(),
  status: z.number().int().min(100).max(599).optional(),
  body: z.unknown().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  delayMs: z.number().int().min(0).max(120_000).optional(),
  /** With `status`: carry the request out, then answer `status` (a lost response). */
  applied: z.boolean().optional(),
});

export const WebhookConfigInput = z.strictObject({ url: z.url().optional(), secret: z.string().optional() });
export const DeliveryMatchInput = z.strictObject({
  event: z.string().optional(),
  action: z.string().optional(),
});
export const DropNextInput = DeliveryMatchInput.extend({ count: z.number().int().positive() });
export const SeqInput = z.strictObject({ seq: z.number().int().positive() });
export const ReorderInput = z.strictObject({ seqs: z.array(z.number().int().positive()) });
