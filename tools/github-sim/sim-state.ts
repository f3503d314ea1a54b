// The simulator's GitHub: every record, and every change as GitHub makes it, each announcing its webhook.
import { createHash } from "node:crypto";
import { SimMergeQueues } from "./merge-queue.js";
import {
  renderCheckRun,
  renderComment,
  renderInstallation,
  renderIssue,
  renderLabel,
  renderPull,
  renderRepo,
  renderRepoSummary,
  renderUser,
} from "./render-rest.js";
import type {
  AccountType,
  RepoRole,
  SimAppInfo,
  SimCheckRun,
  SimComment,
  SimInstallation,
  SimIssue,
  SimIssueEvent,
  SimLabel,
  SimReaction,
  SimRepo,
  SimUser,
} from "./sim-types.js";

export type { SimAppInfo } from "./sim-types.js";

/** Receives each webhook GitHub would send; the payload already carries `installation`. */
export type WebhookSink = (event: string, payload: Record<string, unknown>) => void;

export class SimNotFound extends Error {}

/** Permission levels from weakest to strongest, for "at least write" checks. */
const roleRank: Record<RepoRole | "none", number> = {
  none: 0,
  read: 1,
  triage: 2,
  write: 3,
  maintain: 4,
  admin: 5,
};

export function roleAtLeast(role: RepoRole | "none", wanted: RepoRole): boolean {
  return roleRank[role] >= roleRank[wanted];
}

const nodePrefix = {
  user: "U_kgDO",
  bot: "BOT_kgDO",
  org: "O_kgDO",
  repo: "R_kgDO",
  issue: "I_kwDO",
  pull: "PR_kwDO",
  comment: "IC_kwDO",
  label: "LA_kwDO",
  checkRun: "CR_kwDO",
  reaction: "REA_lADO",
} as const;

type NodeKind = keyof typeof nodePrefix;

export class SimState {
  readonly users = new Map<number, SimUser>();
  readonly repos = new Map<number, SimRepo>();
  readonly issues = new Map<number, SimIssue>();
  readonly comments = new Map<number, SimComment>();
  /** Issue id -> its events list, oldest first (assignments, labels, state). */
  readonly issueEvents = new Map<number, SimIssueEvent[]>();
  readonly reactions = new Map<number, SimReaction>();
  readonly checkRuns = new Map<number, SimCheckRun>();
  readonly installations = new Map<number, SimInstallation>();
  readonly mergeQueues = new SimMergeQueues();
  /** Token -> user id (personal access tokens of seeded users). */
  readonly userTokens = new Map<string, number>();
  /** Installation token -> installation id and expiry. */
  readonly installationTokens = new Map<string, { installationId: number; expiresAt: number }>();
  readonly #nodes = new Map<string, { kind: NodeKind; id: number }>();
  #nextId = 1000;
  botUser!: SimUser;

  constructor(
    readonly app: SimAppInfo,
    readonly urls: { api: string; web: string },
    readonly now: () => number,
    private readonly sink: WebhookSink,
  ) {
    this.reset();
  }

  reset(): void {
    this.users.clear();
    this.repos.clear();
    this.issues.clear();
    this.comments.clear();
    this.issueEvents.clear();
    this.reactions.clear();
    this.checkRuns.clear();
    this.installations.clear();
    this.mergeQueues.clear();
    this.userTokens.clear();
    this.installationTokens.clear();
    this.#nodes.clear();
    this.#nextId = 1000;
    this.botUser = this.addUser({
      login: `${this.app.slug}[bot]`,
      type: "Bot",
      id: 41_000_000 + this.app.id,
    });
  }

  timestamp(): string {
    return new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
  }

  #id(): number {
    return ++this.#nextId;
  }

  #node(kind: NodeKind, id: number): string {
    const nodeId = `${nodePrefix[kind]}${Buffer.from(`${kind}:${id}`).toString("base64url")}`;
    this.#nodes.set(nodeId, { kind, id });
    return nodeId;
  }

  /** What a node id names, or undefined for an id GitHub never issued. */
  nodeById(nodeId: string): { kind: NodeKind; id: number } | undefined {
    return this.#nodes.get(nodeId);
  }

  renderApp() {
    return {
      id: this.app.id,
      slug: this.app.slug,
      node_id: `A_kwDO${Buffer.from(`app:${this.app.id}`).toString("base64url")}`,
      owner: null,
      name: this.app.slug,
      description: "",
      external_url: this.urls.web,
      html_url: `${this.urls.web}/apps/${this.app.slug}`,
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
      permissions: this.app.permissions,
      events: this.app.events,
    };
  }

  // ---- accounts -------------------------------------------------------------------------------

  addUser(spec: { login: string; id?: number; type?: AccountType; tokens?: string[] }): SimUser {
    const existing = this.userByLogin(spec.login);
    const id = spec.id ?? existing?.id ?? this.#id();
    const type = spec.type ?? existing?.type ?? "User";
    const kind: NodeKind = type === "Bot" ? "bot" : type === "Organization" ? "org" : "user";
    const user: SimUser = { id, login: spec.login, type, nodeId: existing?.nodeId ?? this.#node(kind, id) };
    if (existing && existing.id !== id) this.users.delete(existing.id);
    this.users.set(id, user);
    for (const token of spec.tokens ?? []) this.userTokens.set(token, id);
    return user;
  }

  userByLogin(login: string): SimUser | undefined {
    const lower = login.toLowerCase();
    for (const user of this.users.values()) if (user.login.toLowerCase() === lower) return user;
    return undefined;
  }

  userById(id: number): SimUser {
    const user = this.users.get(id);
    if (!user) throw new SimNotFound(`no user with id ${id}`);
    return user;
  }

  requireUser(login: string): SimUser {
    const user = this.userByLogin(login);
    if (!user) throw new SimNotFound(`no user ${login}: seed it first`);
    return user;
  }

  // ---- repositories ---------------------------------------------------------------------------

  addRepo(spec: {
    owner: string;
    name: string;
    id?: number;
    private?: boolean;
    defaultBranch?: string;
    files?: Record<string, string>;
  }): SimRepo {
    if (!this.userByLogin(spec.owner)) this.addUser({ login: spec.owner, type: "Organization" });
    if (this.findRepo(`${spec.owner}/${spec.name}`)) {
      throw new Error(`repository ${spec.owner}/${spec.name} already exists`);
    }
    const id = spec.id ?? this.#id();
    const defaultBranch = spec.defaultBranch ?? "main";
    const sha = this.#sha(`${id}:initial`);
    const repo: SimRepo = {
      id,
      nodeId: this.#node("repo", id),
      ownerLogin: spec.owner,
      name: spec.name,
      private: spec.private ?? true,
      defaultBranch,
      files: new Map(Object.entries(spec.files ?? {})),
      branches: new Map([[defaultBranch, sha]]),
      commits: new Map([
        [
          sha,
          {
            sha,
            message: "Initial commit",
            authorLogin: spec.owner,
            timestamp: this.timestamp(),
            added: Object.keys(spec.files ?? {}),
            removed: [],
            modified: [],
          },
        ],
      ]),
      roles: new Map(),
      labels: [],
      nextNumber: 1,
      createdAt: this.timestamp(),
    };
    this.repos.set(id, repo);
    return repo;
  }

  findRepo(fullName: string): SimRepo | undefined {
    const lower = fullName.toLowerCase();
    for (const repo of this.repos.values()) {
      if (`${repo.ownerLogin}/${repo.name}`.toLowerCase() === lower) return repo;
    }
    return undefined;
  }

  requireRepo(fullName: string): SimRepo {
    const repo = this.findRepo(fullName);
    if (!repo) throw new SimNotFound(`no repository ${fullName}: seed it first`);
    return repo;
  }

  repoById(id: number): SimRepo {
    const repo = this.repos.get(id);
    if (!repo) throw new SimNotFound(`no repository with id ${id}`);
    return repo;
  }

  fullName(repo: SimRepo): string {
    return `${repo.ownerLogin}/${repo.name}`;
  }

  setRole(repo: SimRepo, login: string, role: RepoRole | null): void {
    if (role === null) repo.roles.delete(login.toLowerCase());
    else repo.roles.set(login.toLowerCase(), role);
  }

  roleOf(repo: SimRepo, user: SimUser): RepoRole | "none" {
    if (user.login.toLowerCase() === repo.ownerLogin.toLowerCase()) return "admin";
    return repo.roles.get(user.login.toLowerCase()) ?? (repo.private ? "none" : "read");
  }

  authorAssociation(repo: SimRepo, userId: number): string {
    const user = this.users.get(userId);
    if (!user) return "NONE";
    if (user.login.toLowerCase() === repo.ownerLogin.toLowerCase()) return "OWNER";
    if (user.type === "Bot") return "NONE";
    return repo.roles.has(user.login.toLowerCase()) ? "COLLABORATOR" : "NONE";
  }

  setFile(repo: SimRepo, path: string, content: string | null): void {
    if (content === null) repo.files.delete(path);
    else repo.files.set(path, content);
  }

  #sha(seed: string): string {
    return createHash("sha1").update(`${seed}:${this.#id()}`).digest("hex");
  }

  // ---- installations --------------------------------------------------------------------------

  installationFor(repo: SimRepo): SimInstallation | undefined {
    for (const installation of this.installations.values()) {
      if (installation.repoIds.has(repo.id)) return installation;
    }
    return undefined;
  }

  createInstallation(
    spec: { id?: number; account: string; repos: string[]; selection?: "all" | "selected" },
    sender: SimUser,
  ): SimInstallation {
    if (!this.userByLogin(spec.account)) this.addUser({ login: spec.account, type: "Organization" });
    const repos = spec.repos.map((r) => this.requireRepo(r));
    const installation: SimInstallation = {
      id: spec.id ?? this.#id(),
      accountLogin: spec.account,
      repoIds: new Set(repos.map((r) => r.id)),
      repositorySelection: spec.selection ?? "selected",
      createdAt: this.timestamp(),
    };
    this.installations.set(installation.id, installation);
    this.sink("installation", {
      action: "created",
      installation: renderInstallation(this, installation),
      repositories: repos.map(renderRepoSummary),
      requester: null,
      sender: renderUser(this, sender),
    });
    return installation;
  }

  changeInstallationRepos(
    installation: SimInstallation,
    change: { add?: string[]; remove?: string[] },
    sender: SimUser,
  ): void {
    const added = (change.add ?? [])
      .map((r) => this.requireRepo(r))
      .filter((r) => !installation.repoIds.has(r.id));
    const removed = (change.remove ?? [])
      .map((r) => this.requireRepo(r))
      .filter((r) => installation.repoIds.has(r.id));
    for (const repo of added) installation.repoIds.add(repo.id);
    for (const repo of removed) installation.repoIds.delete(repo.id);
    const action = added.length > 0 ? "added" : "removed";
    if (added.length === 0 && removed.length === 0) return;
    this.sink("installation_repositories", {
      action,
      installation: renderInstallation(this, installation),
      repository_selection: installation.repositorySelection,
      repositories_added: added.map(renderRepoSummary),
      repositories_removed: removed.map(renderRepoSummary),
      requester: null,
      sender: renderUser(this, sender),
    });
  }

  deleteInstallation(installation: SimInstallation, sender: SimUser): void {
    const repos = [...installation.repoIds].map((id) => this.repoById(id));
    this.installations.delete(installation.id);
    for (const [token, entry] of this.installationTokens) {
      if (entry.installationId === installation.id) this.installationTokens.delete(token);
    }
    this.sink("installation", {
      action: "deleted",
      installation: renderInstallation(this, installation),
      repositories: repos.map(renderRepoSummary),
      requester: null,
      sender: renderUser(this, sender),
    });
  }

  /** A repository event for the parts kept in files of their own (merge queues). */
  emitRepositoryEvent(repo: SimRepo, event: string, sender: SimUser, fields: Record<string, unknown>): void {
    this.#emit(repo, event, sender, fields);
  }

  /** A repository event: sent only where the App is installed, like GitHub's. */
  #emit(repo: SimRepo, event: string, sender: SimUser, fields: Record<string, unknown>): void {
    const installation = this.installationFor(repo);
    if (!installation) return;
    this.sink(event, {
      ...fields,
      repository: renderRepo(this, repo),
      sender: renderUser(this, sender),
      installation: { id: installation.id, node_id: `MDIz${installation.id}` },
    });
  }

  // ---- labels ---------------------------------------------------------------------------------

  findLabel(repo: SimRepo, name: string): SimLabel | undefined {
    const lower = name.toLowerCase();
    return repo.labels.find((l) => l.name.toLowerCase() === lower);
  }

  labelById(repo: SimRepo, id: number): SimLabel {
    const label = repo.labels.find((l) => l.id === id);
    if (!label) throw new SimNotFound(`no label ${id} in ${this.fullName(repo)}`);
    return label;
  }

  createLabel(repo: SimRepo, spec: { name: string; color?: string; description?: string | null }): SimLabel {
    if (this.findLabel(repo, spec.name)) throw new Error(`label ${spec.name} already exists`);
    const id = this.#id();
    const label: SimLabel = {
      id,
      nodeId: this.#node("label", id),
      name: spec.name,
      color: (spec.color ?? "ededed").replace(/^#/, ""),
      description: spec.description ?? null,
      isDefault: false,
    };
    repo.labels.push(label);
    return label;
  }

  /** Deleting a label takes it off every issue silently (GitHub sends `label.deleted`, which the App does not subscribe to). */
  deleteLabel(repo: SimRepo, label: SimLabel): void {
    repo.labels = repo.labels.filter((l) => l.id !== label.id);
    for (const issue of this.issuesOf(repo)) issue.labelIds = issue.labelIds.filter((id) => id !== label.id);
  }

  // ---- issues ---------------------------------------------------------------------------------

  issuesOf(repo: SimRepo): SimIssue[] {
    return [...this.issues.values()].filter((i) => i.repoId === repo.id).sort((a, b) => a.number - b.number);
  }

  issueById(id: number): SimIssue | undefined {
    return this.issues.get(id);
  }

  findIssue(repo: SimRepo, number: number): SimIssue | undefined {
    for (const issue of this.issues.values())
      if (issue.repoId === repo.id && issue.number === number) return issue;
    return undefined;
  }

  requireIssue(repo: SimRepo, number: number): SimIssue {
    const issue = this.findIssue(repo, number);
    if (!issue) throw new SimNotFound(`no issue ${this.fullName(repo)}#${number}`);
    return issue;
  }

  commentsOf(issue: SimIssue): SimComment[] {
    return [...this.comments.values()]
      .filter((c) => c.repoId === issue.repoId && c.issueNumber === issue.number)
      .sort((a, b) => a.id - b.id);
  }

  #issueEvent(issue: SimIssue, action: string, sender: SimUser, extra: Record<string, unknown> = {}): void {
    const repo = this.repoById(issue.repoId);
    this.#recordEvent(issue, action, sender, extra);
    if (issue.pull) {
      this.#emit(repo, "pull_request", sender, {
        action,
        number: issue.number,
        pull_request: renderPull(this, issue),
        ...extra,
      });
    } else {
      this.#emit(repo, "issues", sender, { action, issue: renderIssue(this, issue), ...extra });
    }
  }

  /** The issue's events list, as GitHub keeps it for `GET …/issues/{n}/events` (issues and PRs alike). */
  #recordEvent(issue: SimIssue, action: string, sender: SimUser, extra: Record<string, unknown>): void {
    const listed: readonly string[] = [
      "assigned",
      "unassigned",
      "labeled",
      "unlabeled",
      "closed",
      "reopened",
    ];
    if (!listed.includes(action)) return;
    const assignee = extra.assignee as { id?: number } | undefined;
    const label = extra.label as { name?: string } | undefined;
    const events = this.issueEvents.get(issue.id) ?? [];
    events.push({
      id: this.#id(),
      event: action as SimIssueEvent["event"],
      actorId: sender.id,
      createdAt: this.timestamp(),
      ...(assignee?.id !== undefined ? { assigneeId: assignee.id } : {}),
      ...(label?.name !== undefined ? { labelName: label.name } : {}),
    });
    this.issueEvents.set(issue.id, events);
  }

  eventsOf(issue: SimIssue): SimIssueEvent[] {
    return this.issueEvents.get(issue.id) ?? [];
  }

  #touch(issue: SimIssue): void {
    issue.updatedAt = this.timestamp();
  }

  createIssue(
    repo: SimRepo,
    spec: {
      title: string;
      body?: string;
      number?: number;
      state?: "open" | "closed";
      labels?: string[];
      assignees?: string[];
      pull?: SimIssue["pull"];
    },
    author: SimUser,
  ): SimIssue {
    const number = spec.number ?? repo.nextNumber;
    if (this.findIssue(repo, number)) throw new Error(`${this.fullName(repo)}#${number} already exists`);
    repo.nextNumber = Math.max(repo.nextNumber, number + 1);
    const id = this.#id();
    const now = this.timestamp();
    const issue: SimIssue = {
      id,
      nodeId: this.#node(spec.pull ? "pull" : "issue", id),
      repoId: repo.id,
      number,
      title: spec.title,
      body: spec.body ?? "",
      state: spec.state ?? "open",
      stateReason: spec.state === "closed" ? "completed" : null,
      authorId: author.id,
      assigneeIds: (spec.assignees ?? []).map((login) => this.requireUser(login).id),
      labelIds: (spec.labels ?? []).map(
        (name) => (this.findLabel(repo, name) ?? this.createLabel(repo, { name })).id,
      ),
      createdAt: now,
      updatedAt: now,
      closedAt: spec.state === "closed" ? now : null,
      blockedByIds: [],
      subIssueIds: [],
      parentId: null,
      ...(spec.pull ? { pull: spec.pull } : {}),
    };
    this.issues.set(id, issue);
    this.#issueEvent(issue, "opened", author);
    return issue;
  }

  editIssue(issue: SimIssue, change: { title?: string; body?: string }, sender: SimUser): void {
    const changes: Record<string, { from: string }> = {};
    if (change.title !== undefined && change.title !== issue.title) {
      changes.title = { from: issue.title };
      issue.title = change.title;
    }
    if (change.body !== undefined && change.body !== issue.body) {
      changes.body = { from: issue.body };
      issue.body = change.body;
    }
    if (Object.keys(changes).length === 0) return;
    this.#touch(issue);
    this.#issueEvent(issue, "edited", sender, { changes });
  }

  setIssueState(
    issue: SimIssue,
    state: "open" | "closed",
    sender: SimUser,
    reason: "completed" | "not_planned" = "completed",
  ): void {
    if (issue.state === state) return;
    issue.state = state;
    issue.stateReason = state === "closed" ? reason : "reopened";
    issue.closedAt = state === "closed" ? this.timestamp() : null;
    this.#touch(issue);
    this.#issueEvent(issue, state === "closed" ? "closed" : "reopened", sender);
  }

  addAssignees(issue: SimIssue, users: SimUser[], sender: SimUser): void {
    for (const user of users) {
      if (issue.assigneeIds.includes(user.id) || issue.assigneeIds.length >= 10) continue;
      issue.assigneeIds.push(user.id);
      this.#touch(issue);
      this.#issueEvent(issue, "assigned", sender, { assignee: renderUser(this, user) });
    }
  }

  removeAssignees(issue: SimIssue, users: SimUser[], sender: SimUser): void {
    for (const user of users) {
      if (!issue.assigneeIds.includes(user.id)) continue;
      issue.assigneeIds = issue.assigneeIds.filter((id) => id !== user.id);
      this.#touch(issue);
      this.#issueEvent(issue, "unassigned", sender, { assignee: renderUser(this, user) });
    }
  }

  addLabels(issue: SimIssue, labels: SimLabel[], sender: SimUser): void {
    const repo = this.repoById(issue.repoId);
    for (const label of labels) {
      if (issue.labelIds.includes(label.id)) continue;
      issue.labelIds.push(label.id);
      this.#touch(issue);
      this.#issueEvent(issue, "labeled", sender, { label: renderLabel(this, repo, label) });
    }
  }

  removeLabels(issue: SimIssue, labels: SimLabel[], sender: SimUser): void {
    const repo = this.repoById(issue.repoId);
    for (const label of labels) {
      if (!issue.labelIds.includes(label.id)) continue;
      issue.labelIds = issue.labelIds.filter((id) => id !== label.id);
      this.#touch(issue);
      this.#issueEvent(issue, "unlabeled", sender, { label: renderLabel(this, repo, label) });
    }
  }

  deleteIssue(issue: SimIssue, sender: SimUser): void {
    const rendered = renderIssue(this, issue);
    for (const comment of this.commentsOf(issue)) this.comments.delete(comment.id);
    this.issues.delete(issue.id);
    for (const other of this.issues.values()) {
      other.blockedByIds = other.blockedByIds.filter((id) => id !== issue.id);
      other.subIssueIds = other.subIssueIds.filter((id) => id !== issue.id);
      if (other.parentId === issue.id) other.parentId = null;
    }
    this.#emit(this.repoById(issue.repoId), "issues", sender, { action: "deleted", issue: rendered });
  }

  /** Moves an issue (and its comments) to another repository under a new number and node id. */
  transferIssue(issue: SimIssue, target: SimRepo, sender: SimUser): SimIssue {
    const source = this.repoById(issue.repoId);
    const before = renderIssue(this, issue);
    const comments = this.commentsOf(issue);
    this.issues.delete(issue.id);
    const moved = this.#createIssueSilently(target, issue);
    for (const comment of comments) {
      comment.repoId = target.id;
      comment.issueNumber = moved.number;
    }
    this.#emit(source, "issues", sender, {
      action: "transferred",
      issue: before,
      changes: { new_issue: renderIssue(this, moved), new_repository: renderRepo(this, target) },
    });
    this.#issueEvent(moved, "opened", sender);
    return moved;
  }

  #createIssueSilently(target: SimRepo, from: SimIssue): SimIssue {
    const id = this.#id();
    const number = target.nextNumber++;
    const labelIds = from.labelIds.flatMap((labelId) => {
      const name = [...this.repos.values()].flatMap((r) => r.labels).find((l) => l.id === labelId)?.name;
      const label = name ? this.findLabel(target, name) : undefined;
      return label ? [label.id] : [];
    });
    const moved: SimIssue = {
      ...from,
      id,
      nodeId: this.#node("issue", id),
      repoId: target.id,
      number,
      labelIds,
      blockedByIds: [],
      subIssueIds: [],
      parentId: null,
    };
    this.issues.set(id, moved);
    return moved;
  }

  // ---- issue dependencies and sub-issues ------------------------------------------------------

  /** The issues `issue` is blocked by, in the order they were added (closed ones included). */
  blockersOf(issue: SimIssue): SimIssue[] {
    return issue.blockedByIds.flatMap((id) => this.issues.get(id) ?? []);
  }

  /** The issues `issue` blocks. */
  blockedBy(issue: SimIssue): SimIssue[] {
    return [...this.issues.values()]
      .filter((i) => i.blockedByIds.includes(issue.id))
      .sort((a, b) => a.id - b.id);
  }

  subIssuesOf(issue: SimIssue): SimIssue[] {
    return issue.subIssueIds.flatMap((id) => this.issues.get(id) ?? []);
  }

  /** Why GitHub would refuse `blocked` to be blocked by `blocking` (422), or null. */
  dependencyProblem(blocked: SimIssue, blocking: SimIssue): string | null {
    if (blocked.pull || blocking.pull) return "Pull requests cannot have or be dependencies";
    if (blocked.id === blocking.id) return "An issue cannot be blocked by itself";
    if (blocked.blockedByIds.includes(blocking.id)) return "The dependency already exists";
    if (blocking.blockedByIds.includes(blocked.id)) return "The dependency would create a cycle";
    return null;
  }

  /** Why GitHub would refuse `child` as a sub-issue of `parent` (422), or null. */
  subIssueProblem(parent: SimIssue, child: SimIssue, replaceParent: boolean): string | null {
    if (parent.pull || child.pull) return "Pull requests cannot be sub-issues or have them";
    if (parent.id === child.id) return "An issue cannot be its own sub-issue";
    if (parent.subIssueIds.includes(child.id)) return "The issue is already a sub-issue of this parent";
    if (child.parentId !== null && !replaceParent) return "The issue already has a parent issue";
    for (
      let up: SimIssue | undefined = parent;
      up;
      up = up.parentId ? this.issues.get(up.parentId) : undefined
    )
      if (up.id === child.id) return "The sub-issue would create a cycle";
    return null;
  }

  #dependencyEvent(
    action: "added" | "removed",
    blocked: SimIssue,
    blocking: SimIssue,
    sender: SimUser,
  ): void {
    const blockedRepo = this.repoById(blocked.repoId);
    const blockingRepo = this.repoById(blocking.repoId);
    const fields = {
      blocked_issue_id: blocked.id,
      blocked_issue: renderIssue(this, blocked),
      blocking_issue_id: blocking.id,
      blocking_issue: renderIssue(this, blocking),
    };
    // GitHub tells each side's repository: "blocked by" to the blocked one, "blocking" to the blocker's.
    this.#emit(blockedRepo, "issue_dependencies", sender, {
      action: `blocked_by_${action}`,
      ...fields,
      blocking_issue_repo: renderRepo(this, blockingRepo),
    });
    this.#emit(blockingRepo, "issue_dependencies", sender, {
      action: `blocking_${action}`,
      ...fields,
      blocked_issue_repo: renderRepo(this, blockedRepo),
    });
  }

  addBlockedBy(blocked: SimIssue, blocking: SimIssue, sender: SimUser): void {
    const problem = this.dependencyProblem(blocked, blocking);
    if (problem) throw new Error(problem);
    blocked.blockedByIds.push(blocking.id);
    this.#touch(blocked);
    this.#dependencyEvent("added", blocked, blocking, sender);
  }

  removeBlockedBy(blocked: SimIssue, blocking: SimIssue, sender: SimUser): void {
    if (!blocked.blockedByIds.includes(blocking.id)) throw new SimNotFound("no such dependency");
    blocked.blockedByIds = blocked.blockedByIds.filter((id) => id !== blocking.id);
    this.#touch(blocked);
    this.#dependencyEvent("removed", blocked, blocking, sender);
  }

  #subIssueEvent(action: "added" | "removed", parent: SimIssue, child: SimIssue, sender: SimUser): void {
    const parentRepo = this.repoById(parent.repoId);
    const childRepo = this.repoById(child.repoId);
    const fields = {
      sub_issue_id: child.id,
      sub_issue: renderIssue(this, child),
      parent_issue_id: parent.id,
      parent_issue: renderIssue(this, parent),
    };
    // The parent's repository hears of its new sub-issue, the sub-issue's of its new parent.
    this.#emit(parentRepo, "sub_issues", sender, {
      action: `sub_issue_${action}`,
      ...fields,
      sub_issue_repo: renderRepo(this, childRepo),
    });
    this.#emit(childRepo, "sub_issues", sender, {
      action: `parent_issue_${action}`,
      ...fields,
      parent_issue_repo: renderRepo(this, parentRepo),
    });
  }

  addSubIssue(parent: SimIssue, child: SimIssue, sender: SimUser, replaceParent = false): void {
    const problem = this.subIssueProblem(parent, child, replaceParent);
    if (problem) throw new Error(problem);
    const previous = child.parentId !== null ? this.issues.get(child.parentId) : undefined;
    if (previous) this.removeSubIssue(previous, child, sender);
    parent.subIssueIds.push(child.id);
    child.parentId = parent.id;
    this.#touch(parent);
    this.#subIssueEvent("added", parent, child, sender);
  }

  removeSubIssue(parent: SimIssue, child: SimIssue, sender: SimUser): void {
    if (!parent.subIssueIds.includes(child.id)) throw new SimNotFound("not a sub-issue of this issue");
    parent.subIssueIds = parent.subIssueIds.filter((id) => id !== child.id);
    child.parentId = null;
    this.#touch(parent);
    this.#subIssueEvent("removed", parent, child, sender);
  }

  // ---- comments and reactions -----------------------------------------------------------------

  addComment(issue: SimIssue, author: SimUser, body: string): SimComment {
    const id = this.#id();
    const now = this.timestamp();
    const comment: SimComment = {
      id,
      nodeId: this.#node("comment", id),
      repoId: issue.repoId,
      issueNumber: issue.number,
      authorId: author.id,
      body,
      createdAt: now,
      updatedAt: now,
    };
    this.comments.set(id, comment);
    this.#touch(issue);
    this.#emit(this.repoById(issue.repoId), "issue_comment", author, {
      action: "created",
      issue: renderIssue(this, issue),
      comment: renderComment(this, comment),
    });
    return comment;
  }

  commentById(id: number): SimComment | undefined {
    return this.comments.get(id);
  }

  issueOfComment(comment: SimComment): SimIssue {
    return this.requireIssue(this.repoById(comment.repoId), comment.issueNumber);
  }

  editComment(comment: SimComment, body: string, sender: SimUser): void {
    const from = comment.body;
    comment.body = body;
    comment.updatedAt = this.timestamp();
    this.#emit(this.repoById(comment.repoId), "issue_comment", sender, {
      action: "edited",
      changes: { body: { from } },
      issue: renderIssue(this, this.issueOfComment(comment)),
      comment: renderComment(this, comment),
    });
  }

  deleteComment(comment: SimComment, sender: SimUser): void {
    const issue = this.issueOfComment(comment);
    const rendered = renderComment(this, comment);
    this.comments.delete(comment.id);
    this.#emit(this.repoById(comment.repoId), "issue_comment", sender, {
      action: "deleted",
      issue: renderIssue(this, issue),
      comment: rendered,
    });
  }

  /** GitHub answers 200 with the existing reaction when the user already reacted so. */
  addReaction(
    comment: SimComment,
    user: SimUser,
    content: string,
  ): { reaction: SimReaction; created: boolean } {
    for (const reaction of this.reactions.values()) {
      if (reaction.commentId === comment.id && reaction.userId === user.id && reaction.content === content) {
        return { reaction, created: false };
      }
    }
    const id = this.#id();
    const reaction: SimReaction = {
      id,
      nodeId: this.#node("reaction", id),
      commentId: comment.id,
      userId: user.id,
      content,
      createdAt: this.timestamp(),
    };
    this.reactions.set(id, reaction);
    return { reaction, created: true };
  }

  reactionsOf(comment: SimComment): SimReaction[] {
    return [...this.reactions.values()].filter((r) => r.commentId === comment.id);
  }

  // ---- branches, pushes and pull requests -----------------------------------------------------

  openPull(
    repo: SimRepo,
    spec: {
      title: string;
      body?: string;
      head: string;
      base?: string;
      draft?: boolean;
      number?: number;
      fork?: boolean;
    },
    author: SimUser,
  ): SimIssue {
    const base = spec.base ?? repo.defaultBranch;
    const headSha = repo.branches.get(spec.head) ?? this.push(repo, spec.head, { author, silent: true }).sha;
    return this.createIssue(
      repo,
      {
        title: spec.title,
        ...(spec.body !== undefined ? { body: spec.body } : {}),
        ...(spec.number !== undefined ? { number: spec.number } : {}),
        pull: {
          headRef: spec.head,
          headSha,
          baseRef: base,
          baseSha: repo.branches.get(base) ?? this.#sha(base),
          draft: spec.draft ?? false,
          merged: false,
          mergedAt: null,
          linkedIssueIds: [],
          ...(spec.fork ? { fork: true } : {}),
        },
      },
      author,
    );
  }

  editPull(issue: SimIssue, change: { title?: string; body?: string; base?: string }, sender: SimUser): void {
    const pull = issue.pull;
    if (!pull) throw new SimNotFound(`#${issue.number} is not a pull request`);
    if (change.base !== undefined && change.base !== pull.baseRef) {
      const from = pull.baseRef;
      pull.baseRef = change.base;
      pull.baseSha = this.repoById(issue.repoId).branches.get(change.base) ?? pull.baseSha;
      this.#touch(issue);
      this.#issueEvent(issue, "edited", sender, {
        changes: { base: { ref: { from }, sha: { from: pull.baseSha } } },
      });
    }
    this.editIssue(issue, change, sender);
  }

  /**
   * Links an issue of the same repository to a pull request by hand (the Development sidebar), or
   * unlinks it. No webhook is sent for it here; the link shows in `closingIssuesReferences`.
   */
  linkIssue(pullRequest: SimIssue, issue: SimIssue, linked: boolean): void {
    const pull = pullRequest.pull;
    if (!pull) throw new SimNotFound(`#${pullRequest.number} is not a pull request`);
    if (issue.pull || issue.repoId !== pullRequest.repoId) {
      throw new SimNotFound(`#${issue.number} is not an issue of the pull request's repository`);
    }
    pull.linkedIssueIds = pull.linkedIssueIds.filter((id) => id !== issue.id);
    if (linked) pull.linkedIssueIds.push(issue.id);
  }

  /** Closes a pull request, merged or not (a merge also moves the base branch). */
  closePull(issue: SimIssue, sender: SimUser, merge = false): void {
    const pull = issue.pull;
    if (!pull || issue.state === "closed") return;
    if (merge) {
      pull.merged = true;
      pull.mergedAt = this.timestamp();
      this.repoById(issue.repoId).branches.set(pull.baseRef, pull.headSha);
    }
    this.setIssueState(issue, "closed", sender);
  }

  /**
   * One commit on a branch: `push`, then `pull_request.synchronize` for each open PR from that
   * branch. `files` (path -> text, null deletes) change the repository's files on its default branch.
   */
  push(
    repo: SimRepo,
    branch: string,
    spec: { author: SimUser; message?: string; files?: Record<string, string | null>; silent?: boolean },
  ): { sha: string; before: string } {
    const zero = "0".repeat(40);
    const before = repo.branches.get(branch) ?? zero;
    const sha = this.#sha(`${repo.id}:${branch}`);
    const added: string[] = [];
    const removed: string[] = [];
    const modified: string[] = [];
    for (const [path, content] of Object.entries(spec.files ?? {})) {
      const existed = repo.files.has(path);
      if (content === null) removed.push(path);
      else (existed ? modified : added).push(path);
      if (branch === repo.defaultBranch) this.setFile(repo, path, content);
    }
    const commit = {
      sha,
      message: spec.message ?? `Update ${branch}`,
      authorLogin: spec.author.login,
      timestamp: this.timestamp(),
      added,
      removed,
      modified,
    };
    repo.commits.set(sha, commit);
    repo.branches.set(branch, sha);
    if (spec.silent) return { sha, before };
    const fullName = this.fullName(repo);
    const person = {
      name: spec.author.login,
      email: `${spec.author.login}@users.noreply.example`,
      username: spec.author.login,
    };
    const commitPayload = {
      id: sha,
      tree_id: createHash("sha1").update(`tree:${sha}`).digest("hex"),
      distinct: true,
      message: commit.message,
      timestamp: commit.timestamp,
      url: `${this.urls.web}/${fullName}/commit/${sha}`,
      author: person,
      committer: person,
      added,
      removed,
      modified,
    };
    this.#emit(repo, "push", spec.author, {
      ref: `refs/heads/${branch}`,
      before,
      after: sha,
      created: before === zero,
      deleted: false,
      forced: false,
      base_ref: null,
      compare: `${this.urls.web}/${fullName}/compare/${before.slice(0, 12)}...${sha.slice(0, 12)}`,
      commits: [commitPayload],
      head_commit: commitPayload,
      pusher: { name: person.name, email: person.email },
    });
    for (const issue of this.issuesOf(repo)) {
      if (!issue.pull || issue.state !== "open" || issue.pull.headRef !== branch) continue;
      issue.pull.headSha = sha;
      this.#touch(issue);
      this.#issueEvent(issue, "synchronize", spec.author, { before, after: sha });
    }
    return { sha, before };
  }

  // ---- check runs -----------------------------------------------------------------------------

  createCheckRun(
    repo: SimRepo,
    spec: {
      name: string;
      headSha: string;
      status?: SimCheckRun["status"];
      conclusion?: string | null;
      detailsUrl?: string | null;
      externalId?: string | null;
      output?: Partial<SimCheckRun["output"]>;
      startedAt?: string;
      completedAt?: string;
    },
    sender: SimUser,
  ): SimCheckRun {
    const id = this.#id();
    const completed = spec.conclusion != null || spec.status === "completed";
    const run: SimCheckRun = {
      id,
      nodeId: this.#node("checkRun", id),
      repoId: repo.id,
      name: spec.name,
      headSha: spec.headSha,
      status: completed ? "completed" : (spec.status ?? "queued"),
      conclusion: spec.conclusion ?? null,
      startedAt: spec.startedAt ?? this.timestamp(),
      completedAt: completed ? (spec.completedAt ?? this.timestamp()) : null,
      detailsUrl: spec.detailsUrl ?? null,
      externalId: spec.externalId ?? null,
      output: { title: null, summary: null, text: null, ...spec.output },
      appId: this.app.id,
    };
    this.checkRuns.set(id, run);
    this.#emit(repo, "check_run", sender, { action: "created", check_run: renderCheckRun(this, run) });
    if (completed)
      this.#emit(repo, "check_run", sender, { action: "completed", check_run: renderCheckRun(this, run) });
    return run;
  }

  updateCheckRun(
    run: SimCheckRun,
    change: {
      name?: string;
      status?: SimCheckRun["status"];
      conclusion?: string | null;
      detailsUrl?: string | null;
      externalId?: string | null;
      output?: Partial<SimCheckRun["output"]>;
      completedAt?: string;
    },
    sender: SimUser,
  ): void {
    const wasCompleted = run.status === "completed";
    if (change.name !== undefined) run.name = change.name;
    if (change.detailsUrl !== undefined) run.detailsUrl = change.detailsUrl;
    if (change.externalId !== undefined) run.externalId = change.externalId;
    if (change.output) run.output = { ...run.output, ...change.output };
    if (change.status !== undefined) run.status = change.status;
    if (change.conclusion != null) {
      run.conclusion = change.conclusion;
      run.status = "completed";
    }
    if (run.status === "completed")
      run.completedAt = change.completedAt ?? run.completedAt ?? this.timestamp();
    if (!wasCompleted && run.status === "completed") {
      this.#emit(this.repoById(run.repoId), "check_run", sender, {
        action: "completed",
        check_run: renderCheckRun(this, run),
      });
    }
  }

  /** A user pressing "Re-run" on the check. */
  rerequestCheckRun(run: SimCheckRun, sender: SimUser): void {
    this.#emit(this.repoById(run.repoId), "check_run", sender, {
      action: "rerequested",
      check_run: renderCheckRun(this, run),
    });
  }
}
