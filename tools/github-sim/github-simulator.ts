// The simulator object: state, request log, faults and webhooks behind one API for tests, demo and benchmarks.
import {
  type AssignAction,
  type CommentAction,
  type DependencyAction,
  DependencyAction as DependencyActionSchema,
  type InstallationSeed,
  type IssueRef,
  IssueSeed,
  type IssueStateAction,
  type PullSeed,
  PullSeed as PullSeedSchema,
  type PushAction,
  type RepoSeed,
  RepoSeed as RepoSeedSchema,
  type SeedDocument,
  SeedDocument as SeedDocumentSchema,
  type SubIssueAction,
  SubIssueAction as SubIssueActionSchema,
  type UserSeed,
} from "./control-schemas.js";
import { type Fault, FaultRules, type FaultSpec } from "./fault-rules.js";
import type { DequeueAction, EnqueueAction, MergeHeadAction, SimMergeGroup } from "./merge-queue.js";
import type { RequestLog, RequestMatch } from "./request-log.js";
import { SimNotFound, type SimState } from "./sim-state.js";
import type { RepoRole, SimCheckRun, SimInstallation, SimIssue, SimRepo, SimUser } from "./sim-types.js";
import type { Delivery, DeliveryMatch, WebhookQueue } from "./webhook-queue.js";

/** An issue as a test wants to assert on it: logins, label names, comment authors. */
export interface IssueSnapshot {
  repo: string;
  number: number;
  nodeId: string;
  title: string;
  body: string;
  state: "open" | "closed";
  isPullRequest: boolean;
  assignees: string[];
  labels: string[];
  comments: { id: number; nodeId: string; author: string; body: string; reactions: string[] }[];
}

export interface GitHubSimulatorParts {
  state: SimState;
  requests: RequestLog;
  webhooks: WebhookQueue;
  faults?: FaultRules;
  url: string;
}

export class GitHubSimulator {
  readonly state: SimState;
  readonly requests: RequestLog;
  readonly webhooks: WebhookQueue;
  readonly faults: FaultRules;
  /** `http://127.0.0.1:<port>` — give it to Probot as GHE_HOST/GHE_PROTOCOL. */
  readonly url: string;
  /** The REST base URL (`…/api/v3`); Octokit derives GraphQL's `…/api/graphql` from it. */
  readonly baseUrl: string;
  readonly graphqlUrl: string;
  #close: () => Promise<void> = async () => {};

  constructor(parts: GitHubSimulatorParts) {
    this.state = parts.state;
    this.requests = parts.requests;
    this.webhooks = parts.webhooks;
    this.faults = parts.faults ?? new FaultRules();
    this.url = parts.url;
    this.baseUrl = `${parts.url}/api/v3`;
    this.graphqlUrl = `${parts.url}/api/graphql`;
  }

  /** Set by the server that owns this simulator. */
  onClose(close: () => Promise<void>): void {
    this.#close = close;
  }

  async close(): Promise<void> {
    await this.#close();
  }

  /** The App's bot account (`<slug>[bot]`), sender of everything the App does. */
  get bot(): SimUser {
    return this.state.botUser;
  }

  // ---- seeding ----------------------------------------------------------------------------------

  /** Users, then repositories (labels, files, collaborators, issues), then installations, then pull requests. */
  seed(document: SeedDocument): void {
    const doc = SeedDocumentSchema.parse(document);
    for (const user of doc.users ?? []) this.addUser(user);
    for (const repo of doc.repos ?? []) this.addRepo(repo);
    for (const installation of doc.installations ?? []) this.install(installation);
    for (const pull of doc.pulls ?? []) this.openPull(pull);
  }

  addUser(spec: UserSeed): SimUser {
    return this.state.addUser(spec);
  }

  addRepo(spec: RepoSeed): SimRepo {
    const parsed = RepoSeedSchema.parse(spec);
    const [owner, name] = parsed.fullName.split("/") as [string, string];
    const repo = this.state.addRepo({
      owner,
      name,
      ...(parsed.id !== undefined ? { id: parsed.id } : {}),
      ...(parsed.private !== undefined ? { private: parsed.private } : {}),
      ...(parsed.defaultBranch !== undefined ? { defaultBranch: parsed.defaultBranch } : {}),
      ...(parsed.files !== undefined ? { files: parsed.files } : {}),
    });
    for (const label of parsed.labels ?? []) {
      const spec = typeof label === "string" ? { name: label } : label;
      this.state.createLabel(repo, spec);
    }
    for (const [login, role] of Object.entries(parsed.collaborators ?? {})) {
      if (!this.state.userByLogin(login)) this.state.addUser({ login });
      this.state.setRole(repo, login, role);
    }
    for (const issue of parsed.issues ?? []) this.addIssue(parsed.fullName, issue);
    return repo;
  }

  setPermission(repo: string, login: string, role: RepoRole | null): void {
    if (!this.state.userByLogin(login)) this.state.addUser({ login });
    this.state.setRole(this.state.requireRepo(repo), login, role);
  }

  /** Changes a default-branch file without a push (seeding); use `push` for a change the App should hear of. */
  setFile(repo: string, path: string, content: string | null): void {
    this.state.setFile(this.state.requireRepo(repo), path, content);
  }

  /** Installs the App (sends `installation.created`, sender the account's owner). */
  install(spec: InstallationSeed): SimInstallation {
    const account = spec.account ?? spec.repos[0]?.split("/")[0];
    if (!account) throw new Error("an installation needs an account or at least one repository");
    const sender =
      this.state.userByLogin(account) ?? this.state.addUser({ login: account, type: "Organization" });
    return this.state.createInstallation({ ...spec, account }, sender);
  }

  installation(id: number): SimInstallation {
    const installation = this.state.installations.get(id);
    if (!installation) throw new SimNotFound(`no installation ${id}`);
    return installation;
  }

  /** Adds or removes repositories of an installation (`installation_repositories`). */
  changeInstallationRepos(id: number, change: { add?: string[]; remove?: string[] }, login?: string): void {
    const installation = this.installation(id);
    this.state.changeInstallationRepos(installation, change, this.#user(login ?? installation.accountLogin));
  }

  uninstall(id: number, login?: string): void {
    const installation = this.installation(id);
    this.state.deleteInstallation(installation, this.#user(login ?? installation.accountLogin));
  }

  /** Opens an issue as `author` (default: the repository's owner); sends `issues.opened` where installed. */
  addIssue(repo: string, spec: IssueSeed): SimIssue {
    const parsed = IssueSeed.parse(spec);
    const target = this.state.requireRepo(repo);
    const author = this.#user(parsed.author ?? target.ownerLogin);
    for (const login of parsed.assignees ?? [])
      if (!this.state.userByLogin(login)) this.state.addUser({ login });
    const issue = this.state.createIssue(
      target,
      {
        title: parsed.title,
        ...(parsed.body !== undefined ? { body: parsed.body } : {}),
        ...(parsed.number !== undefined ? { number: parsed.number } : {}),
        ...(parsed.state !== undefined ? { state: parsed.state } : {}),
        ...(parsed.labels ? { labels: parsed.labels } : {}),
        ...(parsed.assignees ? { assignees: parsed.assignees } : {}),
      },
      author,
    );
    for (const comment of parsed.comments ?? [])
      this.state.addComment(issue, this.#user(comment.author), comment.body);
    return issue;
  }

  // ---- what people do ---------------------------------------------------------------------------

  /** A comment by a person (e.g. `/reclaim`): `issue_comment.created`. */
  comment(action: CommentAction) {
    return this.state.addComment(
      this.#issue(action.repo, action.issue),
      this.#user(action.login),
      action.body,
    );
  }

  editComment(commentId: number, body: string, login: string): void {
    this.state.editComment(this.#comment(commentId), body, this.#user(login));
  }

  deleteComment(commentId: number, login: string): void {
    this.state.deleteComment(this.#comment(commentId), this.#user(login));
  }

  closeIssue(action: IssueStateAction): void {
    this.state.setIssueState(
      this.#issue(action.repo, action.issue),
      "closed",
      this.#user(action.login),
      action.reason ?? "completed",
    );
  }

  reopenIssue(action: IssueStateAction): void {
    this.state.setIssueState(this.#issue(action.repo, action.issue), "open", this.#user(action.login));
  }

  deleteIssue(action: IssueStateAction): void {
    this.state.deleteIssue(this.#issue(action.repo, action.issue), this.#user(action.login));
  }

  transferIssue(action: IssueStateAction & { to: string }): SimIssue {
    return this.state.transferIssue(
      this.#issue(action.repo, action.issue),
      this.state.requireRepo(action.to),
      this.#user(action.login),
    );
  }

  /** A person assigning or labelling by hand (`issues.assigned`/`issues.labeled`), creating unknown labels. */
  assign(action: AssignAction): void {
    const issue = this.#issue(action.repo, action.issue);
    const repo = this.state.repoById(issue.repoId);
    const sender = this.#user(action.login);
    this.state.addAssignees(
      issue,
      (action.assignees ?? []).map((login) => this.#user(login)),
      sender,
    );
    this.state.addLabels(
      issue,
      (action.labels ?? []).map(
        (name) => this.state.findLabel(repo, name) ?? this.state.createLabel(repo, { name }),
      ),
      sender,
    );
  }

  unassign(action: AssignAction): void {
    const issue = this.#issue(action.repo, action.issue);
    const repo = this.state.repoById(issue.repoId);
    const sender = this.#user(action.login);
    this.state.removeAssignees(
      issue,
      (action.assignees ?? []).map((login) => this.#user(login)),
      sender,
    );
    this.state.removeLabels(
      issue,
      (action.labels ?? []).flatMap((name) => this.state.findLabel(repo, name) ?? []),
      sender,
    );
  }

  /** Marks `issue` blocked by another issue, or with `remove` unmarks it: `issue_dependencies` on both sides. */
  setBlockedBy(action: DependencyAction): void {
    const parsed = DependencyActionSchema.parse(action);
    const blocked = this.#issue(parsed.repo, parsed.issue);
    const blocking = this.#issueRef(parsed.repo, parsed.blockedBy);
    if (parsed.remove) this.state.removeBlockedBy(blocked, blocking, this.#user(parsed.login));
    else this.state.addBlockedBy(blocked, blocking, this.#user(parsed.login));
  }

  /** Adds a sub-issue to `parent`, or with `remove` takes it off: `sub_issues` on both sides. */
  setSubIssue(action: SubIssueAction): void {
    const parsed = SubIssueActionSchema.parse(action);
    const parent = this.#issue(parsed.repo, parsed.parent);
    const child = this.#issueRef(parsed.repo, parsed.subIssue);
    const sender = this.#user(parsed.login);
    if (parsed.remove) this.state.removeSubIssue(parent, child, sender);
    else this.state.addSubIssue(parent, child, sender, parsed.replaceParent ?? false);
  }

  /** Opens a pull request (`pull_request.opened`); a new head branch gets a commit first, silently. */
  openPull(spec: PullSeed): SimIssue {
    const parsed = PullSeedSchema.parse(spec);
    return this.state.openPull(
      this.state.requireRepo(parsed.repo),
      {
        title: parsed.title,
        head: parsed.head,
        ...(parsed.body !== undefined ? { body: parsed.body } : {}),
        ...(parsed.base !== undefined ? { base: parsed.base } : {}),
        ...(parsed.draft !== undefined ? { draft: parsed.draft } : {}),
        ...(parsed.number !== undefined ? { number: parsed.number } : {}),
        ...(parsed.fork ? { fork: true } : {}),
      },
      this.#user(parsed.author),
    );
  }

  editPull(
    repo: string,
    number: number,
    change: { title?: string; body?: string; base?: string },
    login: string,
  ) {
    this.state.editPull(this.#issue(repo, number), change, this.#user(login));
  }

  /** Links (or with `linked: false` unlinks) issue `issue` to PR `number` by hand, as the Development sidebar does. */
  linkIssue(repo: string, number: number, issue: number, linked = true): void {
    this.state.linkIssue(this.#issue(repo, number), this.#issue(repo, issue), linked);
  }

  closePull(repo: string, number: number, login: string, options: { merge?: boolean } = {}): void {
    this.state.closePull(this.#issue(repo, number), this.#user(login), options.merge ?? false);
  }

  reopenPull(repo: string, number: number, login: string): void {
    this.state.setIssueState(this.#issue(repo, number), "open", this.#user(login));
  }

  /** One commit on a branch: `push`, and `pull_request.synchronize` for its open PRs. */
  push(action: PushAction): { sha: string; before: string } {
    return this.state.push(this.state.requireRepo(action.repo), action.branch, {
      author: this.#user(action.login),
      ...(action.message !== undefined ? { message: action.message } : {}),
      ...(action.files !== undefined ? { files: action.files } : {}),
    });
  }

  /** "Re-run" pressed on a check run: `check_run.rerequested`. */
  rerequestCheckRun(checkRunId: number, login: string): void {
    const run = this.state.checkRuns.get(checkRunId);
    if (!run) throw new SimNotFound(`no check run ${checkRunId}`);
    this.state.rerequestCheckRun(run, this.#user(login));
  }

  /** Adds pull requests to their merge queue: a merge group each, `merge_group.checks_requested` for each. */
  enqueue(action: EnqueueAction): SimMergeGroup[] {
    const repo = this.state.requireRepo(action.repo);
    return this.state.mergeQueues.enqueue(this.state, repo, action.pulls, this.#user(action.login));
  }

  /** Removes a pull request from its queue (`destroyed`); the groups behind it are rebuilt and re-requested. */
  dequeue(action: DequeueAction): SimMergeGroup[] {
    const repo = this.state.requireRepo(action.repo);
    return this.state.mergeQueues.dequeue(this.state, repo, action.number, this.#user(action.login));
  }

  /** Merges the head of a queue: its PR closes merged, the base branch moves to its group's head. */
  mergeQueueHead(action: MergeHeadAction): { number: number; group: SimMergeGroup } {
    const repo = this.state.requireRepo(action.repo);
    const base = action.base ?? repo.defaultBranch;
    const entry = this.state.mergeQueues.mergeHead(this.state, repo, base, this.#user(action.login));
    return { number: entry.number, group: entry.group };
  }

  /** A queue as a test reads it: its PRs in order with their groups. */
  mergeQueue(repo: string, base?: string): { number: number; group: SimMergeGroup }[] {
    const target = this.state.requireRepo(repo);
    return this.state.mergeQueues
      .entries(target, base ?? target.defaultBranch)
      .map((entry) => ({ number: entry.number, group: entry.group }));
  }

  // ---- faults -----------------------------------------------------------------------------------

  /** The next `times` (default 1) requests matching fail with `status` and/or answer after `delayMs`. */
  fail(spec: FaultSpec): Fault {
    return this.faults.add(spec);
  }

  delay(match: RequestMatch, delayMs: number, times = 1): Fault {
    return this.faults.add({ ...match, delayMs, times });
  }

  /**
   * Holds the next matching request until `release()`: it is neither carried out nor answered
   * before then. `arrived` settles once the request has reached the simulator.
   */
  hold(match: RequestMatch): { arrived: Promise<void>; release(): void; fault: Fault } {
    let release!: () => void;
    let arrive!: () => void;
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    const arrived = new Promise<void>((resolve) => {
      arrive = resolve;
    });
    const fault = this.faults.add({ ...match, until, onArrival: arrive, times: 1 });
    return { arrived, release, fault };
  }

  clearFaults(): void {
    this.faults.clear();
  }

  // ---- webhooks ---------------------------------------------------------------------------------

  configureWebhooks(change: { url?: string; secret?: string }): void {
    this.webhooks.configure(change);
  }

  readonly #settlers: Array<() => Promise<void>> = [];

  /**
   * `flush()` also waits for `settle` (an App's work that runs after its answers, such as the merge
   * fence's re-checks), and for the deliveries that work caused.
   */
  addSettler(settle: () => Promise<void>): void {
    this.#settlers.push(settle);
  }

  /** Resolves when every delivery (and every delivery those caused) has been answered. */
  async flush(): Promise<void> {
    do {
      await this.webhooks.flush();
      for (const settle of this.#settlers) await settle();
    } while (!this.webhooks.idle);
  }

  deliveries(match: DeliveryMatch = {}): Delivery[] {
    return this.webhooks.list(match);
  }

  // ---- reading state ----------------------------------------------------------------------------

  issue(repo: string, number: number): IssueSnapshot {
    const issue = this.#issue(repo, number);
    const target = this.state.repoById(issue.repoId);
    return {
      repo: this.state.fullName(target),
      number: issue.number,
      nodeId: issue.nodeId,
      title: issue.title,
      body: issue.body,
      state: issue.state,
      isPullRequest: issue.pull !== undefined,
      assignees: issue.assigneeIds.map((id) => this.state.userById(id).login),
      labels: issue.labelIds.map((id) => this.state.labelById(target, id).name),
      comments: this.state.commentsOf(issue).map((c) => ({
        id: c.id,
        nodeId: c.nodeId,
        author: this.state.userById(c.authorId).login,
        body: c.body,
        reactions: this.state.reactionsOf(c).map((r) => r.content),
      })),
    };
  }

  checkRuns(repo: string, headSha?: string): SimCheckRun[] {
    const target = this.state.requireRepo(repo);
    return [...this.state.checkRuns.values()].filter(
      (r) => r.repoId === target.id && (headSha === undefined || r.headSha === headSha),
    );
  }

  labels(repo: string): string[] {
    return this.state.requireRepo(repo).labels.map((l) => l.name);
  }

  /** A JSON picture of everything, for the demo's `/_sim/state`. */
  snapshot() {
    const { state } = this;
    return {
      users: [...state.users.values()],
      installations: [...state.installations.values()].map((i) => ({
        id: i.id,
        account: i.accountLogin,
        repos: [...i.repoIds].map((id) => state.fullName(state.repoById(id))),
      })),
      repos: [...state.repos.values()].map((repo) => ({
        id: repo.id,
        fullName: state.fullName(repo),
        defaultBranch: repo.defaultBranch,
        branches: Object.fromEntries(repo.branches),
        files: [...repo.files.keys()],
        labels: repo.labels.map((l) => l.name),
        collaborators: Object.fromEntries(repo.roles),
        issues: state.issuesOf(repo).map((i) => this.issue(state.fullName(repo), i.number)),
        checkRuns: this.checkRuns(state.fullName(repo)).map((r) => ({
          id: r.id,
          name: r.name,
          headSha: r.headSha,
          status: r.status,
          conclusion: r.conclusion,
          title: r.output.title,
        })),
      })),
    };
  }

  /** Back to an empty GitHub: records, tokens, request log, faults and deliveries. */
  reset(): void {
    this.state.reset();
    this.requests.reset();
    this.faults.clear();
    this.webhooks.reset();
  }

  #user(login: string): SimUser {
    return this.state.requireUser(login);
  }

  #issue(repo: string, number: number): SimIssue {
    return this.state.requireIssue(this.state.requireRepo(repo), number);
  }

  #issueRef(repo: string, ref: IssueRef): SimIssue {
    return typeof ref === "number" ? this.#issue(repo, ref) : this.#issue(ref.repo, ref.issue);
  }

  #comment(id: number) {
    const comment = this.state.commentById(id);
    if (!comment) throw new SimNotFound(`no comment ${id}`);
    return comment;
  }
}
