// The one line a Slack-compatible sink shows for a notification; agent-chosen words are escaped so they cannot mention or link.
import type { Notification } from "./notifier.js";

/** Slack's control characters (`<…>` links and mentions, `&` entities) escaped; invisible and control characters dropped. */
function plain(text: unknown, max = 200): string {
  const value = String(text)
    .replace(/\p{Cc}|\p{Cf}/gu, " ")
    .replace(/\s+/gu, " ")
    .trim();
  const cut = [...value].length > max ? `${[...value].slice(0, max).join("")}…` : value;
  return cut.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function actorOf(value: unknown): string {
  if (!value || typeof value !== "object") return "someone";
  const actor = value as { login?: unknown; runtime?: unknown; sessionId?: unknown };
  const who = actor.runtime ? `${plain(actor.runtime, 40)}` : "agent";
  const session = actor.sessionId ? ` session ${plain(String(actor.sessionId).slice(0, 8))}` : "";
  return `${who}${session} (${plain(actor.login ?? "unknown", 39)})`;
}

/** What happened, in words: one sentence per event, then the subject. */
function sentenceOf(n: Notification): string {
  const d = n.data;
  switch (n.event) {
    case "takeover":
      return `${actorOf(d.holder)} took over from ${actorOf(d.previous)} (generation ${plain(d.previousGeneration)} → ${plain(d.generation)})`;
    case "superseded-pr":
      return `pull request #${plain(d.pullRequest)} fails the claim-hold check: its holder was superseded`;
    case "stale":
      return `the claim went stale: no heartbeat from ${actorOf(d.holder)}`;
    case "reaped":
      return `the claim of ${actorOf(d.holder)} was reaped by the janitor`;
    case "needs-human":
      return `${actorOf(d.holder)} needs a human: ${plain(d.blocker ?? "no reason given", 500)}`;
    case "budget-warn":
      return `spend crossed the warning level${d.spentUsd !== undefined ? ` ($${plain(d.spentUsd)})` : ""}`;
    case "budget-exhausted":
      return `the budget is spent${d.spentUsd !== undefined ? ` ($${plain(d.spentUsd)})` : ""}: the lease ended`;
    case "stalled":
      return `${actorOf(d.holder)} heartbeats but made no progress since ${plain(d.lastProgressAt)} (onStall: ${plain(d.onStall)})`;
    case "janitor-halted":
      return `the janitor halted reaping: ${plain(d.reaps)} of ${plain(d.active)} claims were due at once`;
  }
}

export function slackTextOf(notification: Notification): string {
  const where = notification.subject ? ` on ${plain(notification.subject)}` : "";
  return `[claim-hold] ${notification.event}${where}: ${sentenceOf(notification)}`;
}
