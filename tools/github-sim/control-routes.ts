// `/_sim/…`: the simulator's control API over HTTP, for the demo and for tests in other processes.
import type { z } from "zod";
import {
  AssignAction,
  CheckRunAction,
  CommentAction,
  DeliveryMatchInput,
  DependencyAction,
  DropNextInput,
  FaultInput,
  FileAction,
  InstallationSeed,
  IssueStateAction,
  PermissionAction,
  PullCloseAction,
  PullLinkAction,
  PullSeed,
  PushAction,
  ReorderInput,
  RepoSeed,
  SeedDocument,
  SeqInput,
  SubIssueAction,
  UserSeed,
  WebhookConfigInput,
} from "./control-schemas.js";
import type { GitHubSimulator } from "./github-simulator.js";
import { mergeQueueRoutes } from "./merge-queue-routes.js";

export interface ControlAnswer {
  status: number;
  body: unknown;
}

type ControlHandler = (
  sim: GitHubSimulator,
  body: unknown,
  query: URLSearchParams,
) => unknown | Promise<unknown>;

function withBody<S extends z.ZodType>(schema: S, run: (sim: GitHubSimulator, input: z.infer<S>) => unknown) {
  return (sim: GitHubSimulator, body: unknown) => run(sim, schema.parse(body ?? {}));
}

const controlRoutes: Record<string, ControlHandler> = {
  "GET /_sim/state": (sim) => sim.snapshot(),
  "POST /_sim/reset": (sim) => {
    sim.reset();
    return { ok: true };
  },
  "POST /_sim/seed": withBody(SeedDocument, (sim, doc) => {
    sim.seed(doc);
    return sim.snapshot();
  }),
  "POST /_sim/users": withBody(UserSeed, (sim, spec) => sim.addUser(spec)),
  "POST /_sim/repos": withBody(RepoSeed, (sim, spec) => ({ id: sim.addRepo(spec).id })),
  "POST /_sim/installations": withBody(InstallationSeed, (sim, spec) => ({ id: sim.install(spec).id })),
  "POST /_sim/permissions": withBody(PermissionAction, (sim, input) => {
    sim.setPermission(input.repo, input.login, input.role);
    return { ok: true };
  }),
  "POST /_sim/files": withBody(FileAction, (sim, input) => {
    sim.setFile(input.repo, input.path, input.content);
    return { ok: true };
  }),
  "POST /_sim/issues": (sim, body) => {
    const { repo, ...spec } = body as { repo: string };
    const issue = sim.addIssue(repo, spec);
    return sim.issue(repo, issue.number);
  },
  "GET /_sim/issue": (sim, _body, query) => sim.issue(query.get("repo") ?? "", Number(query.get("number"))),
  "POST /_sim/comments": withBody(CommentAction, (sim, input) => ({ id: sim.comment(input).id })),
  "POST /_sim/issues/close": withBody(IssueStateAction, (sim, input) => {
    sim.closeIssue(input);
    return sim.issue(input.repo, input.issue);
  }),
  "POST /_sim/issues/reopen": withBody(IssueStateAction, (sim, input) => {
    sim.reopenIssue(input);
    return sim.issue(input.repo, input.issue);
  }),
  "POST /_sim/issues/assign": withBody(AssignAction, (sim, input) => {
    sim.assign(input);
    return sim.issue(input.repo, input.issue);
  }),
  "POST /_sim/issues/unassign": withBody(AssignAction, (sim, input) => {
    sim.unassign(input);
    return sim.issue(input.repo, input.issue);
  }),
  "POST /_sim/issues/blocked-by": withBody(DependencyAction, (sim, input) => {
    sim.setBlockedBy(input);
    return sim.issue(input.repo, input.issue);
  }),
  "POST /_sim/issues/sub-issues": withBody(SubIssueAction, (sim, input) => {
    sim.setSubIssue(input);
    return sim.issue(input.repo, input.parent);
  }),
  "POST /_sim/pulls": withBody(PullSeed, (sim, input) => sim.issue(input.repo, sim.openPull(input).number)),
  "POST /_sim/pulls/close": withBody(PullCloseAction, (sim, input) => {
    sim.closePull(input.repo, input.number, input.login, { merge: input.merge ?? false });
    return sim.issue(input.repo, input.number);
  }),
  "POST /_sim/pulls/link": withBody(PullLinkAction, (sim, input) => {
    sim.linkIssue(input.repo, input.number, input.issue, input.linked ?? true);
    return sim.issue(input.repo, input.number);
  }),
  "POST /_sim/push": withBody(PushAction, (sim, input) => sim.push(input)),
  "POST /_sim/check-runs/rerequest": withBody(CheckRunAction, (sim, input) => {
    sim.rerequestCheckRun(input.checkRunId, input.login);
    return { ok: true };
  }),
  ...mergeQueueRoutes,
  "GET /_sim/requests": (sim, _body, query) => {
    const since = Number(query.get("since") ?? 0);
    return {
      entries: sim.requests.since(since),
      counts: sim.requests.counts(since),
      mark: sim.requests.mark(),
    };
  },
  "POST /_sim/requests/reset": (sim) => {
    sim.requests.reset();
    return { ok: true };
  },
  "GET /_sim/faults": (sim) => sim.faults.faults,
  "POST /_sim/faults": withBody(FaultInput, (sim, input) => sim.fail(input)),
  "POST /_sim/faults/clear": (sim) => {
    sim.clearFaults();
    return { ok: true };
  },
  "GET /_sim/webhooks": (sim) =>
    sim.webhooks.deliveries.map(({ body: _body, ...delivery }) => ({ ...delivery, payload: undefined })),
  "POST /_sim/webhooks/config": withBody(WebhookConfigInput, (sim, input) => {
    sim.configureWebhooks(input);
    return { url: sim.webhooks.url };
  }),
  "POST /_sim/webhooks/flush": async (sim) => {
    await sim.flush();
    return { ok: true };
  },
  "POST /_sim/webhooks/hold": (sim) => {
    sim.webhooks.hold();
    return { ok: true };
  },
  "POST /_sim/webhooks/release": (sim) => {
    sim.webhooks.release();
    return { ok: true };
  },
  "POST /_sim/webhooks/drop": withBody(DeliveryMatchInput, (sim, input) => ({
    dropped: sim.webhooks.drop(input),
  })),
  "POST /_sim/webhooks/drop-next": withBody(DropNextInput, (sim, { count, ...match }) => {
    sim.webhooks.dropNext(count, match);
    return { ok: true };
  }),
  "POST /_sim/webhooks/reorder": withBody(ReorderInput, (sim, input) => {
    sim.webhooks.reorder(input.seqs);
    return { pending: sim.webhooks.pending().map((d) => d.seq) };
  }),
  "POST /_sim/webhooks/redeliver": withBody(SeqInput, (sim, input) => ({
    seq: sim.webhooks.redeliver(input.seq).seq,
  })),
  "POST /_sim/webhooks/deliver": withBody(SeqInput, async (sim, input) => {
    const delivery = await sim.webhooks.deliverNow(input.seq);
    return { seq: delivery.seq, status: delivery.status, responseStatus: delivery.responseStatus };
  }),
};

/** Answers a control request, or undefined when the path is not a control route. */
export async function handleControl(
  sim: GitHubSimulator,
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): Promise<ControlAnswer | undefined> {
  const handler = controlRoutes[`${method} ${path}`];
  if (!handler)
    return path.startsWith("/_sim") ? { status: 404, body: { error: "no such control route" } } : undefined;
  try {
    return { status: 200, body: (await handler(sim, body, query)) ?? { ok: true } };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { status: 400, body: { error: "bad_request", message } };
  }
}

export const controlRouteNames = Object.keys(controlRoutes);
