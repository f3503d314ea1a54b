// After a heartbeat: the GitHub side and notifications of a needs-human change or a budget reached, only when one happened.

import { decideBudget } from "../../budget/decide-budget.js";
import { needsHumanChange } from "../../budget/needs-human.js";
import { microsToUsd } from "../../budget/usage.js";
import type { RepoConfig } from "../../config/repo-config.js";
import type { ClaimRecord, SubjectKey } from "../../domain/claim.js";
import { budgetNotification } from "../../notify/notification-events.js";
import type { SubjectRef } from "../../providers/assignment-provider.js";
import type { HeartbeatRecord } from "../../providers/liveness-store.js";
import type { SpendReport } from "../../providers/spend-store.js";
import type { LeaseCoreDeps } from "../ports.js";
import { refused } from "../refusals.js";
import { finishEnded } from "../transitions/end-claim.js";
import { budgetExhaustedWrite } from "./budget-writes.js";
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
 * `410 gone { reason: "budget_exhausted" }`.
 */
export async function applyHeartbeatEffects(
  deps: LeaseCoreDeps,
  input: HeartbeatEffectsInput,
): Promise<void> {
  const change = needsHumanChange(input.needsHumanBefore, input.heartbeat);
  // The steady heartbeat: no news, nothing held back, no usage — one map lookup, no I/O.
  const settle = change.kind === "unchanged" && deps.needsHuman?.isDue(input.lease, deps.now()) === true;
  if (change.kind === "unchanged" && !settle && !input.spend) return;
  const config = await configOf(deps, input.record);
  const show = deps.needsHuman ?? new NeedsHumanShow(deps);
  if (change.kind !== "unchanged") await show.changed(input.record, config, change);
  else if (settle) await show.settle(input.record, config);
  if (input.spend) await enforceBudget(deps, input, config, input.spend);
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

async function enforceBudget(
  deps: LeaseCoreDeps,
  input: HeartbeatEffectsInput,
  config: RepoConfig,
  spend: SpendReport,
): Promise<void> {
  const { record, lease } = input;
  const limits = config.budgets[record.taskClass];
  const decision = decideBudget(spend, limits);
  const spendUsd = microsToUsd(spend.afterMicros);
  if (decision.warn && limits.warnUsd !== null && (await deps.stores.spend.markBudgetWarned(lease))) {
    deps.notifier?.emit(
      budgetNotification("budget-warn", record, { spentUsd: spendUsd, limitUsd: limits.warnUsd }, config),
    );
  }
  if (!decision.exhausted || limits.maxUsd === null) return;
  await endOverBudget(deps, input, config, spendUsd, limits.maxUsd);
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
        ref: refOf(record),
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

function refOf(record: Pick<ClaimRecord, "installationId" | "repo" | "issue">): SubjectRef {
  return { installationId: record.installationId, repo: record.repo, issue: record.issue };
}
