// `/_sim/merge-queue/…`: enqueue, dequeue and merge through the control API (the demo, tests in other processes).
import type { GitHubSimulator } from "./github-simulator.js";
import { DequeueAction, EnqueueAction, MergeHeadAction } from "./merge-queue.js";

type ControlHandler = (sim: GitHubSimulator, body: unknown, query: URLSearchParams) => unknown;

export const mergeQueueRoutes: Record<string, ControlHandler> = {
  "GET /_sim/merge-queue": (sim, _body, query) =>
    sim.mergeQueue(query.get("repo") ?? "", query.get("base") ?? undefined),
  "POST /_sim/merge-queue/enqueue": (sim, body) => ({ groups: sim.enqueue(EnqueueAction.parse(body ?? {})) }),
  "POST /_sim/merge-queue/dequeue": (sim, body) => ({
    rebuilt: sim.dequeue(DequeueAction.parse(body ?? {})),
  }),
  "POST /_sim/merge-queue/merge": (sim, body) => sim.mergeQueueHead(MergeHeadAction.parse(body ?? {})),
};
