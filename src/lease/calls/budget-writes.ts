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

function usd(amount: number): string {
  return `$${amount.toFixed(2)}`;
}
