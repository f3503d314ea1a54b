// The spend parts of the heartbeat script's reply (lua/includes/spend.lua), read back as the store's types.
import { microsToUsd } from "../../budget/usage.js";
import type { SpendReport, UsageDecreased } from "../spend-store.js";
import type { ScriptReply } from "./script-runner.js";

function micros(value: ScriptReply | undefined, what: string): number {
  const text = String(value ?? "");
  if (!/^\d{1,16}$/.test(text)) throw new Error(`the heartbeat script answered a bad ${what}: ${text}`);
  return Number(text);
}

/** The subject's spend before and after the heartbeat's report, and its warning mark. */
export function parseSpendReply(
  before: ScriptReply | undefined,
  after: ScriptReply | undefined,
  warned: ScriptReply | undefined,
): SpendReport {
  return {
    beforeMicros: micros(before, "spend"),
    afterMicros: micros(after, "spend"),
    warned: warned === "1",
  };
}

/** `{'usage_decreased', field, last}`: the lease's last figure (micro-dollars for the cost). */
export function parseUsageDecreased(
  field: ScriptReply | undefined,
  last: ScriptReply | undefined,
): UsageDecreased {
  if (field === "costUsd") return { kind: "usage_decreased", field, last: microsToUsd(micros(last, "cost")) };
  if (field === "tokens") return { kind: "usage_decreased", field, last: micros(last, "token count") };
  throw new Error(`the heartbeat script refused usage for an unknown field: ${String(field)}`);
}
