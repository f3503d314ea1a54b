// The GitHub text and writes of the needs-human and budget moments: the ask's inert comment and the over-budget release; pure.
import type { RepoConfig } from "../../config/repo-config.js";
import type { ClaimRecord } from "../../domain/claim.js";
import { describeActor, inert } from "../../domain/inert-text.js";
import type { TransitionWrite } from "../../providers/assignment-provider.js";
import { endedClaimWrite } from "../transitions/ended-write.js";

/**
 * The comment of a holder asking for a person: the blocker as inert text (it can never mention,
 * link or hide anything), mentioning `notify.mention` — a maintainer's config value, already
 * checked to be `@user` or `@org/team` — when it is set.
 */
export function needsHumanAskBody(
  record: Pick<ClaimRecord, "actor" | "generation">,
  config: Pick<RepoConfig, "notify">,
  blocker: string,
): string {
  const lines = [
    `🙋 ${describeActor(record.actor)} needs a person to go on (generation ${record.generation}).`,
    "",
    `> ${inert(blocker, { max: 300 })}`,
  ];
  if (config.notify.mention) lines.push("", `${config.notify.mention}, could you take a look?`);
  return lines.join("\n");
}

/**
 * The App's ask on a stalled claim's behalf (`onStall: needs-human`): who made no progress since
 * when, and what a person can do. Inert: the holder's description, a time and `notify.mention`.
 */
export function stallAskBody(
  record: Pick<ClaimRecord, "actor" | "generation">,
  config: Pick<RepoConfig, "notify">,
  blocker: string,
): string {
  const lines = [
    `⏳ ${describeActor(record.actor)} is stalled (generation ${record.generation}): it heartbeats but does not progress.`,
    "",
    `> ${inert(blocker, { max: 300 })}`,
    "",
    "A push to its branch, its pull request, a phase change or a reply here withdraws this ask; `/reclaim` takes the issue.",
  ];
  if (config.notify.mention) lines.push("", `${config.notify.mention}, could you take a look?`);
  return lines.join("\n");
}

/**
 * The lease ended because the subject's spend reached `maxUsd`: released (labels and App-made
 * assignment off, claim comment final), the over-budget label on, and a note saying what was spent
 * and what a person can do.
 */
export function budgetExhaustedWrite(args: {
  previous: ClaimRecord;
  ended: ClaimRecord;
  config: RepoConfig;
  spendUsd: number;
  maxUsd: number;
}): TransitionWrite {
  const { previous, ended, config } = args;
  const taskClass = previous.taskClass;
  const note =
    `💸 ${describeActor(previous.actor)} stopped: this issue's spend reached its budget ` +
    `(${usd(args.spendUsd)} of ${usd(args.maxUsd)} for ${taskClass} work, all generations together). ` +
    `Generation ${previous.generation} is released.\n\n` +
    `\`claims/next\` skips this issue while it carries the ${inert(config.labels.overBudget)} label. ` +
    `To let agents go on, raise \`budgets.${taskClass}.maxUsd\` in \`.github/claim-hold.yml\` and remove the label.`;
  const write = endedClaimWrite({ previous, ended, config, note });
  write.addLabels = [config.labels.overBudget];
  return write;
}

/**
 * The App's ask on the holder's behalf when its budget pauses it: spend against the limit, and how
 * a person answers. Inert: only numbers, the class and the maintainer's `notify.mention`.
 */
export function budgetPausedAskBody(
  record: Pick<ClaimRecord, "actor" | "generation" | "taskClass">,
  config: Pick<RepoConfig, "notify" | "reclaim">,
  spendUsd: number,
  maxUsd: number,
): string {
  const lines = [
    `⏸️ ${describeActor(record.actor)} is paused (generation ${record.generation}): this issue's spend reached its budget ` +
      `(${usd(spendUsd)} of ${usd(maxUsd)} for ${record.taskClass} work, all generations together). ` +
      "The lease stays held while its heartbeats go on.",
    "",
    `To let it go on, answer with \`/budget +5\` (raise the limit by $5) or \`/budget 20\` (set it to $20); ` +
      `it needs ${config.reclaim.permission} permission. \`/reclaim release\` ends the lease instead.`,
  ];
  if (config.notify.mention) lines.push("", `${config.notify.mention}, could you take a look?`);
  return lines.join("\n");
}

/** The blocker a budget pause's `needs-human` notification carries. */
export function budgetPausedBlocker(spendUsd: number, maxUsd: number): string {
  return `budget reached: ${usd(spendUsd)} of ${usd(maxUsd)}; answer /budget +N or /budget N on the issue`;
}

function usd(amount: number): string {
  return `$${amount.toFixed(2)}`;
}
