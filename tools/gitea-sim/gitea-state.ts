// The Gitea simulator's in-memory instance: users with tokens, repositories with their labels, issues, comments and commit statuses.

export interface SimUser {
  id: number;
  login: string;
}

export interface SimLabel {
  id: number;
  name: string;
  color: string;
  description: string;
}

export interface SimComment {
  id: number;
  body: string;
  author: string;
  createdAt: number;
  updatedAt: number;
  reactions: { login: string; content: string }[];
}

/**
 * An assignee or label change on an issue, as Gitea keeps it among the issue's comments (its
 * timeline's `assignees` and `label` entries): who made it and when.
 */
export type SimIssueEvent = { id: number; by: string; createdAt: number; removed: boolean } & (
  | { type: "assignees"; assignee: string }
  | { type: "label"; labelId: number }
);

/** What a pull request has beyond its issue: its branches and commits. */
export interface SimPull {
  headRef: string;
  headSha: string;
  baseRef: string;
  /** Oldest first; the last one is the head. */
  commits: { sha: string; message: string }[];
}

export interface SimIssue {
  id: number;
  number: number;
  title: string;
  body: string;
  author: string;
  state: "open" | "closed";
  isPull: boolean;
  /** Set on a pull request opened with `addPullRequest`. */
  pull?: SimPull;
  assignees: string[];
  labelIds: number[];
  /** The ids of the issues (of any repository) this one depends on: its blockers. */
  dependsOn: number[];
  comments: SimComment[];
  /** Assignee and label changes made through the REST API or by `people`, oldest first. */
  events: SimIssueEvent[];
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
}

export interface SimStatus {
  id: number;
  state: string;
  context: string;
  description: string;
  target_url: string;
  creator: string;
  createdAt: number;
}

/** A repository webhook; its secret is kept but, as on Gitea, never answered. */
export interface SimHook {
  id: number;
  type: string;
  active: boolean;
  /** As Gitea stores them: `issues` and `pull_request` expanded to their sub-events. */
  events: string[];
  url: string;
  contentType: string;
  secret: string;
  /** The branches whose push and pull request events are delivered (`*` or empty: all). */
  branchFilter: string;
  createdAt: number;
  updatedAt: number;
}

/** Gitea's `issuesHook`/`pullHook`: `issues` or `pull_request` turns on every sub-event of its group. */
const hookEventGroups: Record<string, string[]> = {
  issues: ["issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"],
  pull_request: [
    "pull_request",
    "pull_request_assign",
    "pull_request_label",
    "pull_request_milestone",
    "pull_request_comment",
    "pull_request_review",
    "pull_request_review_request",
    "pull_request_sync",
  ],
};

/** The events a hook is stored with for `CreateHookOption.events` (none: `push` only, as Gitea does). */
export function expandHookEvents(events: string[]): string[] {
  const given = events.length === 0 ? ["push"] : events;
  return [...new Set(given.flatMap((event) => hookEventGroups[event] ?? [event]))];
}

export interface SimRepo {
  id: number;
  owner: string;
  name: string;
  /** Collaborator permission by lower-case login (`owner`, `admin`, `write`, `read`). */
  permissions: Map<string, string>;
  /** Raw files of the default branch by path. */
  files: Map<string, string>;
  labels: SimLabel[];
  issues: SimIssue[];
  /** Statuses per commit, oldest first. */
  statuses: Map<string, SimStatus[]>;
  /** Branches by name: their head commit and when it was made (pull request heads included). */
  branches: Map<string, { sha: string; message: string; committedAt: number }>;
  hooks: SimHook[];
  /** The repository's "Enable dependencies" setting (`internal_tracker.enable_issue_dependencies`); off, the dependency routes answer 404. */
  dependenciesEnabled: boolean;
}

export class GiteaSimState {
  readonly users: SimUser[] = [];
  /** Access token → login. */
  readonly tokens = new Map<string, string>();
  readonly repos: SimRepo[] = [];
  #nextId = 1;

  constructor(
    readonly now: () => number,
    /** The instance's root URL, once the server listens (links in bodies). */
    public baseUrl = "http://gitea.invalid",
  ) {}

  nextId(): number {
    return this.#nextId++;
  }

  /** `id`: one of Gitea's own users' (its ghost -1, its Actions user -2); otherwise the next id. */
  addUser(login: string, token?: string, id?: number): SimUser {
    const user = { id: id ?? this.nextId(), login };
    this.users.push(user);
    if (token) this.tokens.set(token, login);
    return user;
  }

  user(login: string): SimUser {
    const user = this.users.find((u) => u.login.toLowerCase() === login.toLowerCase());
    if (!user) throw new Error(`no simulated Gitea user ${login}`);
    return user;
  }

  addRepo(fullName: string, permissions: Record<string, string> = {}): SimRepo {
    const [owner, name] = fullName.split("/") as [string, string];
    const repo: SimRepo = {
      id: this.nextId(),
      owner,
      name,
      permissions: new Map(Object.entries(permissions).map(([login, p]) => [login.toLowerCase(), p])),
      files: new Map(),
      labels: [],
      issues: [],
      statuses: new Map(),
      branches: new Map(),
      hooks: [],
      dependenciesEnabled: true,
    };
    this.repos.push(repo);
    return repo;
  }

  /** Whether `login` administers `repo` (its owner, or an `owner`/`admin` collaborator). */
  isAdmin(repo: SimRepo, login: string): boolean {
    const permission = repo.permissions.get(login.toLowerCase());
    return (
      repo.owner.toLowerCase() === login.toLowerCase() || permission === "admin" || permission === "owner"
    );
  }

  repo(owner: string, name: string): SimRepo | undefined {
    const full = `${owner}/${name}`.toLowerCase();
    return this.repos.find((r) => `${r.owner}/${r.name}`.toLowerCase() === full);
  }

  addIssue(
    repo: SimRepo,
    issue: { title: string; author: string; body?: string; isPull?: boolean; labels?: string[] },
  ): SimIssue {
    const now = this.now();
    const created: SimIssue = {
      id: this.nextId(),
      // Issues and pull requests share one index sequence per repository, as on Gitea.
      number: repo.issues.length + 1,
      title: issue.title,
      body: issue.body ?? "",
      author: issue.author,
      state: "open",
      isPull: issue.isPull ?? false,
      assignees: [],
      labelIds: (issue.labels ?? []).map((name) => this.label(repo, name).id),
      dependsOn: [],
      comments: [],
      events: [],
      createdAt: now,
      updatedAt: now,
      closedAt: null,
    };
    repo.issues.push(created);
    return created;
  }

  /**
   * A pull request from `headRef` into `baseRef` (default `main`) with these commit messages
   * (default one), its head the last commit.
   */
  addPullRequest(
    repo: SimRepo,
    pull: {
      title: string;
      author: string;
      body?: string;
      headRef: string;
      baseRef?: string;
      commits?: string[];
    },
  ): SimIssue {
    const issue = this.addIssue(repo, {
      title: pull.title,
      author: pull.author,
      body: pull.body ?? "",
      isPull: true,
    });
    issue.pull = { headRef: pull.headRef, headSha: "", baseRef: pull.baseRef ?? "main", commits: [] };
    for (const message of pull.commits ?? [pull.title]) this.pushCommit(issue, message);
    return issue;
  }

  /** A new commit on a pull request's head branch; answers its sha. */
  pushCommit(issue: SimIssue, message: string): string {
    if (!issue.pull) throw new Error(`#${issue.number} is not a simulated pull request`);
    const sha = this.nextId().toString(16).padStart(40, "c");
    issue.pull.commits.push({ sha, message });
    issue.pull.headSha = sha;
    const repo = this.#issues().find((entry) => entry.issue === issue)?.repo;
    repo?.branches.set(issue.pull.headRef, { sha, message, committedAt: this.now() });
    issue.updatedAt = this.now();
    return sha;
  }

  /** A commit pushed to `branch` (created when missing) without a pull request; answers its sha. */
  pushBranch(repo: SimRepo, branch: string, message: string): string {
    const sha = this.nextId().toString(16).padStart(40, "b");
    repo.branches.set(branch, { sha, message, committedAt: this.now() });
    return sha;
  }

  /** The repository's label of that name, created (grey) when missing. */
  label(repo: SimRepo, name: string): SimLabel {
    const found = repo.labels.find((l) => l.name.toLowerCase() === name.toLowerCase());
    if (found) return found;
    const label = { id: this.nextId(), name, color: "#ededed", description: "" };
    repo.labels.push(label);
    return label;
  }

  /** `blocked` depends on `blocker` (Gitea's `POST …/issues/{index}/dependencies`). */
  addDependency(blocked: SimIssue, blocker: SimIssue): void {
    if (!blocked.dependsOn.includes(blocker.id)) blocked.dependsOn.push(blocker.id);
  }

  /** The issues `issue` depends on, with their repositories. */
  blockersOf(issue: SimIssue): { repo: SimRepo; issue: SimIssue }[] {
    return this.#issues().filter(({ issue: i }) => issue.dependsOn.includes(i.id));
  }

  /** The issues that depend on `issue`. */
  blockedBy(issue: SimIssue): { repo: SimRepo; issue: SimIssue }[] {
    return this.#issues().filter(({ issue: i }) => i.dependsOn.includes(issue.id));
  }

  #issues(): { repo: SimRepo; issue: SimIssue }[] {
    return this.repos.flatMap((repo) => repo.issues.map((issue) => ({ repo, issue })));
  }

  /** Records, as `by`'s, each assignee `issue` lost or gained since `before` (removals first, as Gitea writes them). */
  recordAssignees(issue: SimIssue, before: string[], by: string): void {
    const has = (logins: string[], login: string) =>
      logins.some((l) => l.toLowerCase() === login.toLowerCase());
    const at = this.now();
    for (const assignee of before.filter((login) => !has(issue.assignees, login)))
      issue.events.push({ id: this.nextId(), type: "assignees", assignee, removed: true, by, createdAt: at });
    for (const assignee of issue.assignees.filter((login) => !has(before, login)))
      issue.events.push({
        id: this.nextId(),
        type: "assignees",
        assignee,
        removed: false,
        by,
        createdAt: at,
      });
  }

  /** Records, as `by`'s, each label `issue` lost or gained since `before` (label ids). */
  recordLabels(issue: SimIssue, before: number[], by: string): void {
    const at = this.now();
    for (const labelId of before.filter((id) => !issue.labelIds.includes(id)))
      issue.events.push({ id: this.nextId(), type: "label", labelId, removed: true, by, createdAt: at });
    for (const labelId of issue.labelIds.filter((id) => !before.includes(id)))
      issue.events.push({ id: this.nextId(), type: "label", labelId, removed: false, by, createdAt: at });
  }

  addComment(issue: SimIssue, author: string, body: string): SimComment {
    const now = this.now();
    const comment = { id: this.nextId(), body, author, createdAt: now, updatedAt: now, reactions: [] };
    issue.comments.push(comment);
    issue.updatedAt = now;
    return comment;
  }
}
