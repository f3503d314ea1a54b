// The simulator's records: plain data that the REST, GraphQL and webhook layers all render from.

export type AccountType = "User" | "Bot" | "Organization";
export type RepoRole = "admin" | "maintain" | "write" | "triage" | "read";

export interface SimUser {
  id: number;
  login: string;
  nodeId: string;
  type: AccountType;
}

export interface SimLabel {
  id: number;
  nodeId: string;
  name: string;
  color: string;
  description: string | null;
  isDefault: boolean;
}

export interface SimCommit {
  sha: string;
  message: string;
  authorLogin: string;
  timestamp: string;
  added: string[];
  removed: string[];
  modified: string[];
}

export interface SimRepo {
  id: number;
  nodeId: string;
  ownerLogin: string;
  name: string;
  private: boolean;
  defaultBranch: string;
  /** Files of the default branch (path -> text); pushes to the default branch change them. */
  files: Map<string, string>;
  /** Branch -> head commit sha. */
  branches: Map<string, string>;
  commits: Map<string, SimCommit>;
  /** Lower-case login -> role; the owner is an admin without an entry. */
  roles: Map<string, RepoRole>;
  labels: SimLabel[];
  /** Issues and pull requests share one sequence of numbers, like GitHub's. */
  nextNumber: number;
  createdAt: string;
}

export interface SimPull {
  headRef: string;
  headSha: string;
  baseRef: string;
  baseSha: string;
  draft: boolean;
  merged: boolean;
  mergedAt: string | null;
  /** Issues (global ids) linked by hand in the Development sidebar: closing references without a keyword. */
  linkedIssueIds: number[];
  /** The head branch lives in the author's fork (`isCrossRepository`), not in the base repository. */
  fork?: boolean;
}

export interface SimIssue {
  id: number;
  nodeId: string;
  repoId: number;
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  stateReason: "completed" | "not_planned" | "reopened" | null;
  authorId: number;
  assigneeIds: number[];
  labelIds: number[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  /** Issues (global ids, any repository) this one is blocked by: GitHub's issue dependencies. */
  blockedByIds: number[];
  /** Sub-issues (global ids), in their order under this parent. */
  subIssueIds: number[];
  /** The parent issue's global id, for a sub-issue. */
  parentId: number | null;
  /** Set when the number is a pull request. */
  pull?: SimPull;
}

/** An event of an issue's REST events list (`GET …/issues/{n}/events`), oldest first. */
export interface SimIssueEvent {
  id: number;
  event: "assigned" | "unassigned" | "labeled" | "unlabeled" | "closed" | "reopened";
  actorId: number;
  createdAt: string;
  assigneeId?: number;
  labelName?: string;
}

export interface SimComment {
  id: number;
  nodeId: string;
  repoId: number;
  issueNumber: number;
  authorId: number;
  body: string;
  createdAt: string;
  updatedAt: string;
}

export interface SimReaction {
  id: number;
  nodeId: string;
  commentId: number;
  userId: number;
  content: string;
  createdAt: string;
}

export interface SimCheckRun {
  id: number;
  nodeId: string;
  repoId: number;
  name: string;
  headSha: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  startedAt: string;
  completedAt: string | null;
  detailsUrl: string | null;
  externalId: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  appId: number;
}

export interface SimInstallation {
  id: number;
  accountLogin: string;
  repoIds: Set<number>;
  repositorySelection: "all" | "selected";
  createdAt: string;
}

/** Who made a request, as the simulator's auth layer resolved it. */
export type SimCaller =
  | { kind: "app" }
  | { kind: "installation"; installation: SimInstallation; user: SimUser }
  | { kind: "user"; user: SimUser };

export interface SimAppInfo {
  id: number;
  slug: string;
  permissions: Record<string, string>;
  events: string[];
}
