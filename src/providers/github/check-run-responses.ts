// GitHub's answers about check runs and pull requests, validated and read into the ChecksProvider's shapes (pure).
import { z } from "zod";
import {
  checkRunName,
  type ExistingCheckRun,
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

const PullRequestCheckResponse = z.object({
  repository: z
    .object({
      pullRequest: z
        .object({
          closingIssuesReferences: z
            .object({
              nodes: z
                .array(
                  z
                    .object({
                      number: z.number().int().positive(),
                      repository: z.object({ databaseId: z.number().int().nullable() }),
                    })
                    .nullable(),
                )
                .nullable(),
            })
            .nullable(),
        })
        .nullable(),
      object: z
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
        .nullable(),
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
  // Another repository's issue is not a subject of this PR's check (subjects are per repository).
  const closes = (repository.pullRequest.closingIssuesReferences?.nodes ?? []).flatMap((issue) =>
    issue && issue.repository.databaseId === repoId ? [issue.number] : [],
  );
  const runs = (repository.object?.checkSuites?.nodes ?? [])
    .flatMap((suite) =>
      suite && (!appId || suite.app?.databaseId === appId) ? (suite.checkRuns?.nodes ?? []) : [],
    )
    .flatMap((run) =>
      run && run.name === checkRunName && run.databaseId !== null ? [{ ...run, id: run.databaseId }] : [],
    )
    .sort((a, b) => b.id - a.id);
  const run = runs[0];
  return {
    closes: [...new Set(closes)],
    existing: run
      ? {
          id: run.id,
          // GraphQL's CheckConclusionState is REST's conclusion in capitals.
          conclusion: run.conclusion?.toLowerCase() ?? null,
          title: run.title,
          summary: run.summary,
          text: run.text,
        }
      : null,
  };
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
