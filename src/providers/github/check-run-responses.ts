// GitHub's answers about check runs and pull requests, validated and read into the ChecksProvider's shapes (pure).
import { z } from "zod";
import {
  checkRunName,
  type ExistingCheckRun,
  type ForeignIssue,
  type MergeGroupCheckState,
  maxForeignIssues,
  type PullRequestCheckState,
  type PullRequestHead,
} from "../checks-provider.js";

const CheckRunList = z.object({
  check_runs: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      conclusion: z.string().nullable(),
      app: z.object({ id: z.number().int() }).nullable().optional(),
      output: z
        .object({
          title: z.string().nullable().optional(),
          summary: z.string().nullable().optional(),
          text: z.string().nullable().optional(),
        })
        .optional(),
    }),
  ),
});

/** A commit's check suites with their latest `claim-hold` run, as both evaluation reads ask for them. */
const CommitCheckRuns = z
  .object({
    checkSuites: z
      .object({
        nodes: z
          .array(
            z
              .object({
                app: z.object({ databaseId: z.number().int().nullable() }).nullable(),
                checkRuns: z
                  .object({
                    nodes: z
                      .array(
                        z
                          .object({
                            databaseId: z.number().int().nullable(),
                            name: z.string(),
                            conclusion: z.string().nullable(),
                            title: z.string().nullable(),
                            summary: z.string().nullable(),
                            text: z.string().nullable(),
                          })
                          .nullable(),
                      )
                      .nullable(),
                  })
                  .nullable(),
              })
              .nullable(),
          )
          .nullable(),
      })
      .nullable()
      .optional(),
  })
  .nullable();

const ClosingReferences = z
  .object({
    nodes: z
      .array(
        z
          .object({
            number: z.number().int().positive(),
            repository: z.object({
              databaseId: z.number().int().nullable(),
              nameWithOwner: z.string().optional(),
            }),
          })
          .nullable(),
      )
      .nullable(),
  })
  .nullable();

const MergeGroupCheckResponse = z.object({
  repository: z
    .object({
      mergeQueue: z
        .object({
          entries: z
            .object({
              nodes: z
                .array(
                  z
                    .object({
                      position: z.number().int(),
                      headCommit: z.object({ oid: z.string() }).nullable(),
                      pullRequest: z
                        .object({
                          number: z.number().int().positive(),
                          headRefName: z.string(),
                          headRefOid: z.string(),
                          author: z.object({ __typename: z.string(), login: z.string() }).nullable(),
                          closingIssuesReferences: ClosingReferences,
                        })
                        .nullable(),
                    })
                    .nullable(),
                )
                .nullable(),
            })
            .nullable(),
        })
        .nullable(),
      object: CommitCheckRuns,
    })
    .nullable(),
});

const StartedRun = z.object({ id: z.number().int() });

const PullRequestCheckResponse = z.object({
  repository: z
    .object({
      pullRequest: z
        .object({
          closingIssuesReferences: ClosingReferences,
        })
        .nullable(),
      object: CommitCheckRuns,
    })
    .nullable(),
});

const PullResponse = z.object({
  number: z.number().int(),
  state: z.enum(["open", "closed"]),
  body: z.string().nullable(),
  user: z.object({ login: z.string(), type: z.string() }),
  head: z.object({ ref: z.string(), sha: z.string() }),
});

/** The newest `claim-hold` run of a REST check-run listing (another App's never counts when `appId` is known). */
export function listedCheckRunOf(data: unknown, appId: number | undefined): ExistingCheckRun | null {
  const runs = CheckRunList.parse(data).check_runs.filter(
    (run) => run.name === checkRunName && (!appId || run.app?.id === appId),
  );
  const run = runs[0];
  if (!run) return null;
  return {
    id: run.id,
    conclusion: run.conclusion,
    title: run.output?.title ?? null,
    summary: run.output?.summary ?? null,
    text: run.output?.text ?? null,
  };
}

/**
 * The PR's closing issues of this repository and the App's newest `claim-hold` run on the head, from
 * the GraphQL read; null when GitHub answered no such pull request.
 */
export function pullRequestCheckStateOf(
  data: unknown,
  repoId: number,
  appId: number | undefined,
): PullRequestCheckState | null {
  const repository = PullRequestCheckResponse.parse(data).repository;
  if (!repository?.pullRequest) return null;
  return {
    closes: closesOf(repository.pullRequest.closingIssuesReferences, repoId),
    closesElsewhere: closesElsewhereOf(repository.pullRequest.closingIssuesReferences, repoId),
    existing: latestRunOf(repository.object, appId),
  };
}

/** Issues of this repository among closing references (another repository's issue is not a subject of the PR's check). */
function closesOf(references: z.infer<typeof ClosingReferences>, repoId: number): number[] {
  const closes = (references?.nodes ?? []).flatMap((issue) =>
    issue && issue.repository.databaseId === repoId ? [issue.number] : [],
  );
  return [...new Set(closes)];
}

/** Closing references to issues of other repositories (fenced when this installation holds claims there). */
function closesElsewhereOf(references: z.infer<typeof ClosingReferences>, repoId: number): ForeignIssue[] {
  const found = new Map<string, ForeignIssue>();
  for (const issue of references?.nodes ?? []) {
    const { databaseId, nameWithOwner } = issue?.repository ?? {};
    if (!issue || databaseId === null || databaseId === undefined || databaseId === repoId || !nameWithOwner)
      continue;
    found.set(`${databaseId}#${issue.number}`, {
      repoId: databaseId,
      repo: nameWithOwner,
      issue: issue.number,
    });
  }
  return [...found.values()].slice(0, maxForeignIssues);
}

/** The App's newest `claim-hold` run among a commit's check suites. */
function latestRunOf(
  commit: z.infer<typeof CommitCheckRuns>,
  appId: number | undefined,
): ExistingCheckRun | null {
  const runs = (commit?.checkSuites?.nodes ?? [])
    .flatMap((suite) =>
      suite && (!appId || suite.app?.databaseId === appId) ? (suite.checkRuns?.nodes ?? []) : [],
    )
    .flatMap((run) =>
      run && run.name === checkRunName && run.databaseId !== null ? [{ ...run, id: run.databaseId }] : [],
    )
    .sort((a, b) => b.id - a.id);
  const run = runs[0];
  return run
    ? {
        id: run.id,
        // GraphQL's CheckConclusionState is REST's conclusion in capitals.
        conclusion: run.conclusion?.toLowerCase() ?? null,
        title: run.title,
        summary: run.summary,
        text: run.text,
      }
    : null;
}

/**
 * The merge queue's entries (each PR with its head, author and closing issues of this repository)
 * and the App's newest `claim-hold` run on the group's head; `queue` null when the branch has none.
 */
export function mergeGroupCheckStateOf(
  data: unknown,
  repoId: number,
  appId: number | undefined,
): MergeGroupCheckState {
  const repository = MergeGroupCheckResponse.parse(data).repository;
  const queue = repository?.mergeQueue
    ? (repository.mergeQueue.entries?.nodes ?? []).flatMap((entry) => {
        if (!entry) return [];
        const pull = entry.pullRequest;
        return [
          {
            position: entry.position,
            groupHeadSha: entry.headCommit?.oid ?? null,
            pullRequest: pull
              ? {
                  number: pull.number,
                  headSha: pull.headRefOid,
                  headRef: pull.headRefName,
                  // A deleted account shows as null (GitHub's "ghost"): a person.
                  author: {
                    login: pull.author?.login ?? "ghost",
                    bot: pull.author?.__typename === "Bot",
                  },
                  closes: closesOf(pull.closingIssuesReferences, repoId).slice(0, 50),
                  closesElsewhere: closesElsewhereOf(pull.closingIssuesReferences, repoId),
                }
              : null,
          },
        ];
      })
    : null;
  return { queue, existing: latestRunOf(repository?.object ?? null, appId) };
}

/** The id of a check run GitHub created. */
export function startedRunIdOf(data: unknown): number {
  return StartedRun.parse(data).id;
}

/** The REST pull request as the fence reads it. */
export function pullRequestHeadOf(data: unknown): PullRequestHead {
  const pull = PullResponse.parse(data);
  return {
    number: pull.number,
    state: pull.state,
    headSha: pull.head.sha,
    headRef: pull.head.ref,
    body: pull.body ?? "",
    author: { login: pull.user.login, bot: pull.user.type === "Bot" },
  };
}
