// After a heartbeat: the GitHub side and notifications of a needs-human change or a budget reached (the lease ended or paused), only when one happened.

import { budgetAction, decideBudget, subjectMaxUsd } from "../../budget/decide-budget.js";
import { needsHumanChange } from "../../budget/needs-human.js";
import { microsToUsd, usdToMicros } from "../../budget/usage.js";
import type { RepoConfig } from "../../config/repo-config.js";
import type { ClaimRecord, SubjectKey } from "../../domain/claim.js";
import { budgetNotification, needsHumanNotification } from "../../notify/notification-events.js";
import { subjectRefOf } from "../../providers/assignment-provider.js";
import type { HeartbeatRecord } from "../../providers/liveness-store.js";
import type { SpendReport } from "../../providers/spend-store.js";
import type { LeaseCoreDeps } from "../ports.js";
import { refused } from "../refusals.js";
import { writeFenced } from "../transitions/commit-transition.js";
import { finishEnded } from "../transitions/end-claim.js";
import { budgetExhaustedWrite, budgetPausedAskBody, budgetPausedBlocker } from "./budget-writes.js";
import { NeedsHumanShow } from "./needs-human-show.js";

type LeaseKey = SubjectKey & { generation: number };
/** The heartbeat's own flag and blocker. */
type HeartbeatAsk = { needsHuman?: boolean | undefined; blocker?: string | undefined };

/** What the heartbeat's store call answered, as far as these effects care. */
export interface HeartbeatEffectsInput {
  lease: LeaseKey;
  /** The digest that proved the lease (the over-budget release is made with it). */
  tokenDigest: string;
  record: HeartbeatRecord;
  needsHumanBefore: boolean;
  heartbeat: HeartbeatAsk;
  spend?: SpendReport | undefined;
}

/**
 * Whether a successful heartbeat has effects to apply: an ask made or withdrawn, a held-back label
 * write now due, or usage reported. The steady heartbeat has none — one map lookup, no I/O.
 */
export function heartbeatEffectsDue(
  deps: Pick<LeaseCoreDeps, "needsHuman" | "now">,
  lease: LeaseKey,
  needsHumanBefore: boolean,
  heartbeat: HeartbeatAsk,
  spend: SpendReport | undefined,
): boolean {
  if (spend || needsHumanChange(needsHumanBefore, heartbeat).kind !== "unchanged") return true;
  return deps.needsHuman?.isDue(lease, deps.now()) === true;
}

/**
 * Runs after a successful heartbeat. Nothing changed (no ask made or withdrawn, no usage, or usage
 * below every limit): no GitHub request, no store call. A budget reached ends the lease and throws
 * `410 gone { reason: "budget_exhausted" }` (`onExhausted: end`), or pauses it. Answers whether
 * the lease is paused by its budget after the heartbeat.
 */
export async function applyHeartbeatEffects(
  deps: LeaseCoreDeps,
  input: HeartbeatEffectsInput,
): Promise<boolean> {
  const pausedBefore = input.record.budgetPaused === true;
  const change = needsHumanChange(input.needsHumanBefore, input.heartbeat);
  // The steady heartbeat: no news, nothing held back, no usage — one map lookup, no I/O.
  const settle = change.kind === "unchanged" && deps.needsHuman?.isDue(input.lease, deps.now()) === true;
  if (change.kind === "unchanged" && !settle && !input.spend) return pausedBefore;
  const config = await configOf(deps, input.record);
  const show = deps.needsHuman ?? new NeedsHumanShow(deps);
  if (change.kind !== "unchanged") await show.changed(input.record, config, change);
  else if (settle) await show.settle(input.record, config);
  if (input.spend) return enforceBudget(deps, input, config, input.spend);
  return pausedBefore;
}

async function configOf(
  deps: LeaseCoreDeps,
  record: Pick<ClaimRecord, "installationId" | "repo">,
): Promise<RepoConfig> {
  return (
    deps.configs.peek(record.installationId, record.repo) ??
    (await deps.configs.load(record.installationId, record.repo))
  );
}

/** Judges the usage against the subject's limit; answers whether the lease is paused by its budget now. */
async function enforceBudget(
  deps: LeaseCoreDeps,
  input: HeartbeatEffectsInput,
  config: RepoConfig,
  spend: SpendReport,
): Promise<boolean> {
  const { record, lease } = input;
  const limits = config.budgets[record.taskClass];
  const paused = record.budgetPaused === true;
  const maxUsd = await maxUsdOf(deps, lease, limits.maxUsd, spend.afterMicros);
  const decision = decideBudget(spend, { ...limits, maxUsd });
  const spendUsd = microsToUsd(spend.afterMicros);
  if (decision.warn && limits.warnUsd !== null && (await deps.stores.spend.markBudgetWarned(lease))) {
    deps.notifier?.emit(
      budgetNotification("budget-warn", record, { spentUsd: spendUsd, limitUsd: limits.warnUsd }, config),
    );
  }
  const action = budgetAction({ exhausted: decision.exhausted, onExhausted: limits.onExhausted, paused });
  if (action === "end" && maxUsd !== null) await endOverBudget(deps, input, config, spendUsd, maxUsd);
  if (action === "pause" && maxUsd !== null) {
    await pauseOverBudget(deps, input, config, spendUsd, maxUsd);
    return true;
  }
  if (action === "resume") {
    await resumeUnderBudget(deps, input, config);
    return false;
  }
  return paused;
}

/**
 * The subject's limit: its class's `maxUsd`, raised by `/budget`. The subject's own limit is read
 * only when the spend reached the class's, so a report below it costs no store call.
 */
async function maxUsdOf(
  deps: LeaseCoreDeps,
  lease: LeaseKey,
  classMaxUsd: number | null,
  spentMicros: number,
): Promise<number | null> {
  if (classMaxUsd === null || spentMicros < usdToMicros(classMaxUsd)) return classMaxUsd;
  const raised = await deps.stores.spend.budgetLimitOf(lease);
  return subjectMaxUsd(classMaxUsd, raised === null ? null : microsToUsd(raised));
}

/**
 * The lease is paused, not ended: its heartbeats keep it. The first heartbeat to pause it (the
 * store's mark decides, across replicas) labels the subject over budget, posts the ask for a person
 * on the holder's behalf and sends the `needs-human` notification.
 */
async function pauseOverBudget(
  deps: LeaseCoreDeps,
  input: HeartbeatEffectsInput,
  config: RepoConfig,
  spendUsd: number,
  maxUsd: number,
): Promise<void> {
  const { record, lease } = input;
  if (!(await deps.stores.spend.markBudgetPaused(lease, lease.generation))) return;
  try {
    await writeFenced(
      deps,
      subjectRefOf(record),
      record,
      {
        subjectNodeId: record.issueNodeId ?? "",
        addLabels: [config.labels.overBudget],
        addComments: [budgetPausedAskBody(record, config, spendUsd, maxUsd)],
      },
      config.labels,
    );
  } catch (error) {
    // Unmarked, the holder's retry of this heartbeat (its usage still past the limit) asks again.
    await deps.stores.spend.clearBudgetPaused(lease);
    throw error;
  }
  deps.notifier?.emit(
    needsHumanNotification(record, budgetPausedBlocker(spendUsd, maxUsd), deps.now(), config),
  );
}

/** A paused lease whose spend is below its limit again (`maxUsd` raised in the config): the pause lifts, the label comes off. */
async function resumeUnderBudget(
  deps: LeaseCoreDeps,
  input: HeartbeatEffectsInput,
  config: RepoConfig,
): Promise<void> {
  const { record, lease } = input;
  if (!(await deps.stores.spend.clearBudgetPaused(lease))) return;
  await writeFenced(
    deps,
    subjectRefOf(record),
    record,
    { subjectNodeId: record.issueNodeId ?? "", removeLabels: [config.labels.overBudget] },
    config.labels,
  );
}

/** The lease ends: released with a note, the over-budget label on, `410 budget_exhausted` to the holder. */
async function endOverBudget(
  deps: LeaseCoreDeps,
  input: HeartbeatEffectsInput,
  config: RepoConfig,
  spendUsd: number,
  maxUsd: number,
): Promise<never> {
  const { stores, now, log } = deps;
  const { record, lease } = input;
  // The record as it was while active, which the ended write renders and the events tell (the
  // heartbeat answered its liveness only). Read before the release, which ends it.
  const held = await stores.claims.get(lease);
  const released = await stores.claims.release({
    key: lease,
    generation: lease.generation,
    tokenDigest: input.tokenDigest,
    now: now(),
    outcome: "abandoned",
  });
  if (released.kind === "released" && !released.repeated) {
    await stores.spend.markBudgetExhausted(lease, lease.generation);
    // Only a concurrent change that the release then undid could leave `held` another record: the
    // released one keeps every field the active one had but the ending's.
    const previous =
      held !== null && held.generation === lease.generation && held.state === "active"
        ? held
        : released.record;
    const ended = { previous, record: { ...released.record, budgetExhausted: true } };
    await finishEnded(
      { ...deps, log },
      {
        key: lease,
        ref: subjectRefOf(record),
        config,
        ended,
        cause: "budget-exhausted",
        at: released.record.endedAt ?? now(),
        spend: { spentUsd: spendUsd, limitUsd: maxUsd },
        write: () => budgetExhaustedWrite({ previous, ended: ended.record, config, spendUsd, maxUsd }),
      },
    );
  }
  throw refused({
    code: "gone",
    message: `This lease has ended (budget_exhausted): the issue's spend reached its budget of $${maxUsd}.`,
    details: { reason: "budget_exhausted" },
  });
}
