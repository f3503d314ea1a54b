// `/budget +5` and `/budget 20` (docs/reference/github-surfaces.md#budget): parsing a person's answer to a budget pause, and whether it raises the subject's limit; pure.

import { microsToUsd, usdToMicros } from "../budget/usage.js";
import { hasPermission } from "../http/auth.js";
import { firstCommandLine } from "../lease/reclaim-command.js";
import type { RepoPermission } from "../providers/assignment-provider.js";

export interface BudgetCommand {
  kind: "budget";
  /** `raise`: `/budget +5` adds to the current limit; `set`: `/budget 20` makes it the limit. Null: no amount read. */
  amount: { mode: "raise" | "set"; usd: number } | null;
}

const command = /^ {0,3}\/budget(?:[ \t]+(.*))?$/i;
/** Dollars with at most two decimals, an optional `$`; `+` in front raises. */
const amountPattern = /^(\+)?\s*\$?(\d{1,7}(?:\.\d{1,2})?)\s*$/;

/**
 * The command on the comment's first line outside quotes and code, or null when that line is no
 * `/budget`. A `/budget` line whose amount cannot be read is still a command (answered with a
 * refusal, so the person learns the form), with `amount: null`.
 */
export function parseBudgetCommand(body: unknown): BudgetCommand | null {
  const line = firstCommandLine(body);
  if (line === null) return null;
  const match = command.exec(line.trimEnd());
  if (!match) return null;
  const amount = amountPattern.exec(match[1]?.trim() ?? "");
  const usd = amount ? Number(amount[2]) : Number.NaN;
  if (!amount || !(usd > 0)) return { kind: "budget", amount: null };
  return { kind: "budget", amount: { mode: amount[1] ? "raise" : "set", usd } };
}

export interface BudgetCommandEvidence {
  command: BudgetCommand;
  commenter: string;
  /** The commenter runs agents (the trust model's fleet login): raising budgets is for people. */
  commenterIsFleet: boolean;
  permission: RepoPermission;
  needed: RepoPermission;
  subject: string;
  /** The subject's spend so far, all generations together. */
  spentMicros: number;
  /** The limit it is judged against now (its `/budget` limit, else its class's `maxUsd`); null: none. */
  limitUsd: number | null;
}

export type BudgetCommandDecision =
  | { kind: "refuse"; reply: string }
  | { kind: "raise"; fromUsd: number; toUsd: number };

/** Refuse (with the reply to post) or raise the subject's limit from what to what. */
export function decideBudgetCommand(evidence: BudgetCommandEvidence): BudgetCommandDecision {
  const { command, commenter, permission, needed, subject, limitUsd } = evidence;
  const refuse = (reply: string): BudgetCommandDecision => ({ kind: "refuse", reply });
  if (evidence.commenterIsFleet) {
    // Inert: no mention of the fleet account, nothing from the comment repeated.
    return refuse(
      `\`/budget\` is for people. \`${commenter}\` runs agent sessions here, and an agent cannot raise the budget it spends, so this comment changed nothing on ${subject}.`,
    );
  }
  if (!hasPermission(permission, needed)) {
    return refuse(
      `@${commenter}, sorry: \`/budget\` needs ${needed} permission on ${subject.split("#")[0]} (you have ${permission}). Nothing was changed.`,
    );
  }
  const form = "Write `/budget +5` to raise the limit by $5, or `/budget 20` to set it to $20.";
  if (!command.amount) return refuse(`@${commenter}, sorry: I could not read an amount. ${form}`);
  if (limitUsd === null) {
    return refuse(
      `@${commenter}, sorry: ${subject} has no budget limit to raise (its class has no \`maxUsd\` in \`.github/claim-hold.yml\`). Nothing was changed.`,
    );
  }
  const toMicros =
    command.amount.mode === "raise"
      ? usdToMicros(limitUsd) + usdToMicros(command.amount.usd)
      : usdToMicros(command.amount.usd);
  const to = usd(microsToUsd(toMicros));
  if (toMicros <= evidence.spentMicros) {
    return refuse(
      `@${commenter}, sorry: a limit of ${to} is not above what ${subject} has spent so far (${usd(microsToUsd(evidence.spentMicros))}). Nothing was changed. ${form}`,
    );
  }
  if (toMicros <= usdToMicros(limitUsd)) {
    return refuse(
      `@${commenter}, sorry: ${to} is not above ${subject}'s limit of ${usd(limitUsd)}; \`/budget\` only raises it. Nothing was changed.`,
    );
  }
  return { kind: "raise", fromUsd: limitUsd, toUsd: microsToUsd(toMicros) };
}

/** The App's audit comment of a raise: who, from what, to what, and the spend so far. */
export function budgetRaisedBody(input: {
  commenter: string;
  fromUsd: number;
  toUsd: number;
  spentMicros: number;
  resumed: boolean;
}): string {
  const lines = [
    `💸 @${input.commenter} raised this issue's budget from ${usd(input.fromUsd)} to ${usd(input.toUsd)} (spent so far: ${usd(microsToUsd(input.spentMicros))}).`,
  ];
  if (input.resumed) lines.push("", "The lease paused by its budget goes on.");
  return lines.join("\n");
}

export function usd(amount: number): string {
  return `$${amount.toFixed(2)}`;
}
