// The GitHub ChecksProvider: REST Checks API (list by name and App, create, update) and the PR read.
import { GitHubWriteError } from "../assignment-provider.js";
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
import {
  listedCheckRunOf,
  mergeGroupCheckStateOf,
  pullRequestCheckStateOf,
  pullRequestHeadOf,
  startedRunIdOf,
} from "./check-run-responses.js";
import { describeGitHubError } from "./github-errors.js";
import { MERGE_GROUP_CHECK_QUERY, type MergeGroupCheckVariables } from "./graphql/merge-group-check.js";
import { PULL_REQUEST_CHECK_QUERY, type PullRequestCheckVariables } from "./graphql/pull-request-check.js";
import { httpStatusOf, type OctokitLike } from "./octokit-like.js";
import { splitRepo } from "./split-repo.js";

export interface GitHubChecksProviderOptions {
  octokitFor: (installationId: number) => Promise<OctokitLike>;
  /** The App's id, so the list is filtered to our own runs (nobody else's `claim-hold` counts). */
  appId?: number;
  onRequest?: (
    kind:
      | "list-check-runs"
      | "read-pull-request-check"
      | "read-merge-group-check"
      | "create-check-run"
      | "update-check-run"
      | "get-pull",
  ) => void;
}

export class GitHubChecksProvider implements ChecksProvider {
  /** HTTP requests made so far. */
  requests = 0;

  constructor(private readonly options: GitHubChecksProviderOptions) {}

  async find(ref: CheckRepoRef, headSha: string): Promise<ExistingCheckRun | null> {
    const { owner, name } = splitRepo(ref.repo);
    const octokit = await this.options.octokitFor(ref.installationId);
    this.#count("list-check-runs");
    let response: { data: unknown };
    try {
      response = await octokit.request("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", {
        owner,
        repo: name,
        ref: headSha,
        check_name: checkRunName,
        filter: "latest",
        ...(this.options.appId ? { app_id: this.options.appId } : {}),
      });
    } catch (error) {
      throw new Error(
        `failed to list the ${checkRunName} check runs of ${ref.repo}@${headSha.slice(0, 7)}: ${describeGitHubError(error)}`,
        { cause: error },
      );
    }
    return listedCheckRunOf(response.data, this.options.appId);
  }

  async readPullRequestCheck(
    ref: CheckRepoRef & { repoId: number },
    pr: { number: number; headSha: string },
  ): Promise<PullRequestCheckState> {
    const { owner, name } = splitRepo(ref.repo);
    const octokit = await this.options.octokitFor(ref.installationId);
    this.#count("read-pull-request-check");
    const variables: PullRequestCheckVariables = {
      owner,
      name,
      number: pr.number,
      headSha: pr.headSha,
      checkName: checkRunName,
      appId: this.options.appId ?? null,
    };
    let data: unknown;
    try {
      data = await octokit.graphql(PULL_REQUEST_CHECK_QUERY, { ...variables });
    } catch (error) {
      throw new Error(
        `failed to read the closing references and ${checkRunName} check run of ${ref.repo}#${pr.number}@${pr.headSha.slice(0, 7)}: ${describeGitHubError(error)}`,
        { cause: error },
      );
    }
    const state = pullRequestCheckStateOf(data, ref.repoId, this.options.appId);
    if (!state)
      throw new Error(`failed to read ${ref.repo}#${pr.number}: GitHub answered no such pull request`);
    return state;
  }

  async readMergeGroupCheck(
    ref: CheckRepoRef & { repoId: number },
    group: { baseBranch: string; headSha: string },
  ): Promise<MergeGroupCheckState> {
    const { owner, name } = splitRepo(ref.repo);
    const octokit = await this.options.octokitFor(ref.installationId);
    this.#count("read-merge-group-check");
    const variables: MergeGroupCheckVariables = {
      owner,
      name,
      branch: group.baseBranch,
      headSha: group.headSha,
      checkName: checkRunName,
      appId: this.options.appId ?? null,
    };
    let data: unknown;
    try {
      data = await octokit.graphql(MERGE_GROUP_CHECK_QUERY, { ...variables });
    } catch (error) {
      throw new Error(
        `failed to read the merge queue of ${ref.repo}:${group.baseBranch} and the ${checkRunName} check run of ${group.headSha.slice(0, 7)}: ${describeGitHubError(error)}`,
        { cause: error },
      );
    }
    return mergeGroupCheckStateOf(data, ref.repoId, this.options.appId);
  }

  async start(
    ref: CheckRepoRef,
    headSha: string,
    output: { title: string; summary: string },
  ): Promise<number> {
    const { owner, name } = splitRepo(ref.repo);
    let id = 0;
    await this.#write(
      `start the ${checkRunName} check run on ${ref.repo}@${headSha.slice(0, 7)}`,
      ref,
      "create-check-run",
      async (octokit) => {
        const response = await octokit.request("POST /repos/{owner}/{repo}/check-runs", {
          owner,
          repo: name,
          name: checkRunName,
          head_sha: headSha,
          status: "in_progress",
          output,
        });
        id = startedRunIdOf(response.data);
      },
    );
    return id;
  }

  async create(ref: CheckRepoRef, headSha: string, run: DesiredCheckRun): Promise<void> {
    const { owner, name } = splitRepo(ref.repo);
    await this.#write(
      `create the ${checkRunName} check run on ${ref.repo}@${headSha.slice(0, 7)}`,
      ref,
      "create-check-run",
      (octokit) =>
        octokit.request("POST /repos/{owner}/{repo}/check-runs", {
          owner,
          repo: name,
          name: checkRunName,
          head_sha: headSha,
          ...checkRunFields(run),
        }),
    );
  }

  async update(ref: CheckRepoRef, existing: { id: number }, run: DesiredCheckRun): Promise<void> {
    const { id } = existing;
    const { owner, name } = splitRepo(ref.repo);
    await this.#write(`update check run ${id} on ${ref.repo}`, ref, "update-check-run", (octokit) =>
      octokit.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", {
        owner,
        repo: name,
        check_run_id: id,
        ...checkRunFields(run),
      }),
    );
  }

  async pullRequest(ref: CheckRepoRef, number: number): Promise<PullRequestHead | null> {
    const { owner, name } = splitRepo(ref.repo);
    const octokit = await this.options.octokitFor(ref.installationId);
    this.#count("get-pull");
    try {
      const response = await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
        owner,
        repo: name,
        pull_number: number,
      });
      return pullRequestHeadOf(response.data);
    } catch (error) {
      if (httpStatusOf(error) === 404) return null;
      throw new Error(`failed to read ${ref.repo}#${number}: ${describeGitHubError(error)}`, {
        cause: error,
      });
    }
  }

  async #write(
    what: string,
    ref: CheckRepoRef,
    kind: "create-check-run" | "update-check-run",
    call: (octokit: OctokitLike) => Promise<unknown>,
  ): Promise<void> {
    const octokit = await this.options.octokitFor(ref.installationId);
    this.#count(kind);
    try {
      await call(octokit);
    } catch (error) {
      throw new GitHubWriteError(`failed to ${what}: ${describeGitHubError(error)}`, httpStatusOf(error), {
        cause: error,
      });
    }
  }

  #count(kind: Parameters<NonNullable<GitHubChecksProviderOptions["onRequest"]>>[0]): void {
    this.requests++;
    this.options.onRequest?.(kind);
  }
}

/** The body fields shared by create and update: always a completed run. */
export function checkRunFields(run: DesiredCheckRun): Record<string, unknown> {
  return {
    status: "completed",
    conclusion: run.conclusion,
    ...(run.detailsUrl ? { details_url: run.detailsUrl } : {}),
    output: {
      title: run.title,
      summary: run.summary,
      text: run.text,
      ...(run.annotations.length
        ? {
            annotations: run.annotations.map((a) => ({
              path: a.path,
              start_line: a.line,
              end_line: a.line,
              annotation_level: a.level,
              message: a.message,
            })),
          }
        : {}),
    },
  };
}
