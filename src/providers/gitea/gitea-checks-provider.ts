// The ChecksProvider port on Gitea (and Forgejo): the `claim-hold` check of a PR head is a commit status, its closing references found as Gitea finds them.
import {
  type CheckRepoRef,
  type ChecksProvider,
  checkRunName,
  type DesiredCheckRun,
  type ExistingCheckRun,
  type MergeGroupCheckState,
  type PullRequestCheckState,
  type PullRequestHead,
} from "../checks-provider.js";
import { splitRepo } from "../github/split-repo.js";
import type { GiteaBotAccount } from "./gitea-bot-account.js";
import type { GiteaClient } from "./gitea-client.js";
import { giteaClosingIssues } from "./gitea-closing-references.js";
import { commitStatusOf } from "./gitea-commit-statuses.js";
import type { GiteaCommitStatus, GiteaPullRequest } from "./gitea-schemas.js";

export interface GiteaChecksProviderOptions {
  client: GiteaClient;
  /** The App's own account: only its `claim-hold` statuses are its check. */
  bot: GiteaBotAccount;
  /** The instance's root URL (links to its own issues count as references). */
  webUrl: string;
}

/**
 * Reads: a PR evaluation is 3 requests (the PR, its commits, the head's statuses); a write is one
 * new status. Gitea has no merge queue: a merge group is never asked for.
 */
export class GiteaChecksProvider implements ChecksProvider {
  constructor(private readonly options: GiteaChecksProviderOptions) {}

  async find(ref: CheckRepoRef, headSha: string): Promise<ExistingCheckRun | null> {
    const { owner, name } = splitRepo(ref.repo);
    const statuses = await this.options.client.listStatuses(owner, name, headSha);
    return existingOf(statuses, await this.options.bot.login());
  }

  async readPullRequestCheck(
    ref: CheckRepoRef & { repoId: number },
    pr: { number: number; headSha: string },
  ): Promise<PullRequestCheckState> {
    const { client, webUrl } = this.options;
    const { owner, name } = splitRepo(ref.repo);
    const read = await client.getPullRequest(owner, name, pr.number);
    const commits = read ? await client.listPullRequestCommits(owner, name, pr.number) : [];
    const closes = giteaClosingIssues(
      { body: read?.body, commitMessages: commits.map((c) => c.commit.message) },
      ref.repo,
      webUrl,
    );
    return { closes, closesElsewhere: [], existing: await this.find(ref, pr.headSha) };
  }

  /** Gitea has no merge queue. */
  async readMergeGroupCheck(
    ref: CheckRepoRef & { repoId: number },
    group: { baseBranch: string; headSha: string },
  ): Promise<MergeGroupCheckState> {
    return { queue: null, existing: await this.find(ref, group.headSha) };
  }

  async create(ref: CheckRepoRef, headSha: string, run: DesiredCheckRun): Promise<void> {
    await this.#post(ref, headSha, commitStatusOf(run.conclusion, run.title, run.detailsUrl, run.statusNote));
  }

  async start(ref: CheckRepoRef, headSha: string, output: { title: string; summary: string }) {
    return (await this.#post(ref, headSha, commitStatusOf(null, output.title))).id;
  }

  /** A status is never changed: a newer one on the same head replaces it. */
  async update(ref: CheckRepoRef, existing: { id: number; headSha: string }, run: DesiredCheckRun) {
    await this.create(ref, existing.headSha, run);
  }

  async pullRequest(ref: CheckRepoRef, number: number): Promise<PullRequestHead | null> {
    const { owner, name } = splitRepo(ref.repo);
    const read = await this.options.client.getPullRequest(owner, name, number);
    return read ? pullRequestHeadOf(read) : null;
  }

  #post(ref: CheckRepoRef, headSha: string, status: ReturnType<typeof commitStatusOf>) {
    const { owner, name } = splitRepo(ref.repo);
    return this.options.client.createStatus(owner, name, headSha, status);
  }
}

/**
 * The App's check on a head: the `claim-hold` status with the highest id when the App wrote it, as
 * Gitea's branch protection takes the highest index per context (ids grow with it). Anyone with
 * write access may post a status under that context; one of theirs on top is no check of the App's,
 * so the evaluation writes its own over it. Picked here, whatever order the answer came in.
 */
export function existingOf(statuses: GiteaCommitStatus[], botLogin: string): ExistingCheckRun | null {
  const newest = statuses
    .filter((status) => status.context === checkRunName)
    .reduce<GiteaCommitStatus | null>((top, status) => (top && top.id >= status.id ? top : status), null);
  if (!newest || newest.creator?.login.toLowerCase() !== botLogin.toLowerCase()) return null;
  return {
    kind: "commit-status",
    id: newest.id,
    conclusion: newest.status,
    title: newest.description ?? "",
    summary: null,
    text: null,
  };
}

/** Gitea users carry no bot flag: the fleet logins say which authors are agents. */
export function pullRequestHeadOf(pr: GiteaPullRequest): PullRequestHead {
  return {
    number: pr.number,
    state: pr.state,
    headSha: pr.head.sha,
    headRef: pr.head.ref,
    body: pr.body ?? "",
    author: { login: pr.user?.login ?? "ghost", bot: false },
  };
}
