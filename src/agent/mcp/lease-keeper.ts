// The MCP server's heartbeats: one timer loop per lease it claimed, for as long as the process runs.

import { type AgentContext, clientFor, leaseCredentials, serverUrl } from "../actions/agent-context.js";
import type { LoopEnd } from "../actions/keep-lease-alive.js";
import { keepLeaseFileAlive } from "../actions/keep-lease-file-alive.js";
import { type LeaseFile, markLease, readLease, removeLease } from "../actions/lease-store.js";
import { formatSubject } from "../actions/subject.js";
import { isClaimHoldError, type LeaseEvent } from "../client/index.js";

export interface LeaseKeeper {
  /** Starts heartbeating `lease` (a re-claim of the same lease keeps the running loop). */
  keep(lease: LeaseFile): void;
  /** Stops heartbeating a subject (its lease was released or found lost by a tool call). */
  forget(subject: string): Promise<void>;
  /** Subjects heartbeated right now. */
  kept(): string[];
  /** Losses found by the heartbeat loops since the last call: plain sentences for the next tool result. */
  takeNotices(): string[];
  /** Stops every loop; with `release`, releases each lease still held (outcome `handoff`). */
  shutdown(options: { release: boolean; note: string; timeoutMs: number }): Promise<ShutdownReport>;
}

export interface ShutdownReport {
  released: string[];
  failed: { subject: string; message: string }[];
}

interface Loop {
  leaseId: string;
  stop: AbortController;
  done: Promise<void>;
}

/** How the keeper tells the agent at once (an MCP logging notification): a lease's live event, or its loss. */
export type LeaseTeller = (message: {
  level: "info" | "warning" | "alert";
  subject: string;
  text: string;
  event?: LeaseEvent;
}) => void;

/**
 * A loop per subject; a loss ends the loop and leaves a notice, never a crash. `tell` hears the
 * lease's live events and its loss as they happen (the notices still reach the next tool result).
 */
export function createLeaseKeeper(ctx: AgentContext, dir: string, tell: LeaseTeller = () => {}): LeaseKeeper {
  const loops = new Map<string, Loop>();
  const notices: string[] = [];

  const stopLoop = async (subject: string) => {
    const loop = loops.get(subject);
    if (!loop) return;
    loops.delete(subject);
    loop.stop.abort("forget");
    await loop.done;
  };

  return {
    keep(lease) {
      const subject = formatSubject(lease);
      const running = loops.get(subject);
      if (running?.leaseId === lease.leaseId) return;
      // A new generation of the same subject: the old loop sees another lease in the file and ends.
      running?.stop.abort("replaced");
      const stop = new AbortController();
      const loop: Loop = {
        leaseId: lease.leaseId,
        stop,
        done: keepLeaseFileAlive(ctx, dir, lease, stop.signal, {
          watch: liveEventsWanted(ctx.env),
          onEvent: (event) => {
            const text = eventNotice(subject, event);
            if (text) tell({ level: event.event === "state" ? "info" : "warning", subject, text, event });
          },
        }).then(
          (end) => {
            if (loops.get(subject) === loop) loops.delete(subject);
            const notice = lossNotice(lease, end);
            if (notice) {
              notices.push(notice);
              tell({ level: "alert", subject, text: notice });
            }
          },
          (error: unknown) => {
            if (loops.get(subject) === loop) loops.delete(subject);
            notices.push(
              `Heartbeats for ${subject} stopped after an unexpected error (${(error as Error).message}); ` +
                "call verify_hold before doing more work on it.",
            );
          },
        ),
      };
      loops.set(subject, loop);
    },

    forget: stopLoop,

    kept() {
      return [...loops.keys()];
    },

    takeNotices() {
      return notices.splice(0, notices.length);
    },

    async shutdown({ release, note, timeoutMs }) {
      const subjects = [...loops.entries()].map(([subject, loop]) => ({ subject, leaseId: loop.leaseId }));
      await Promise.all(subjects.map(({ subject }) => stopLoop(subject)));
      if (!release) return { released: [], failed: [] };
      return releaseForShutdown(ctx, dir, subjects, { note, signal: AbortSignal.timeout(timeoutMs) });
    },
  };
}

/** Releases (outcome handoff) each lease the stopped loops still held; a superseded or gone one is forgotten. */
async function releaseForShutdown(
  ctx: AgentContext,
  dir: string,
  subjects: { subject: string; leaseId: string }[],
  { note, signal }: { note: string; signal: AbortSignal },
): Promise<ShutdownReport> {
  const report: ShutdownReport = { released: [], failed: [] };
  await Promise.all(
    subjects.map(async ({ subject, leaseId }) => {
      const [repo, issue] = subject.split("#");
      const lease = await readLease(dir, { repo: repo ?? "", issue: Number(issue) }).catch(() => null);
      if (!lease || lease.leaseId !== leaseId || lease.status !== "held") return;
      await markLease(dir, lease, "releasing", "release handoff requested: the MCP server stopped");
      try {
        await clientFor(ctx, serverUrl(ctx, lease)).release(
          leaseCredentials(lease),
          { outcome: "handoff", note },
          { signal },
        );
        await removeLease(dir, lease);
        report.released.push(subject);
      } catch (error) {
        if (isClaimHoldError(error) && (error.code === "superseded" || error.status === 410)) {
          await removeLease(dir, lease);
        } else {
          await markLease(dir, lease, "held");
        }
        report.failed.push({ subject, message: (error as Error).message });
      }
    }),
  );
  return report;
}

/** Live lease events are on unless `CLAIM_HOLD_LIVE_EVENTS=0` (heartbeats alone then tell a loss). */
export function liveEventsWanted(env: NodeJS.ProcessEnv): boolean {
  return env.CLAIM_HOLD_LIVE_EVENTS?.trim() !== "0";
}

/** A live event as a sentence for the agent; the stream's opening state is not worth one. */
export function eventNotice(subject: string, event: LeaseEvent): string | null {
  const data = event.data;
  switch (event.event) {
    case "state":
      return null;
    case "takeover_pending":
      return `${subject}: another session asked to take this claim over; the heartbeats keep it while this session is alive.`;
    case "needs_human_answered":
      return `${subject}: a person ${data.how === "cleared" ? "cleared your request for help" : "replied to your request for help"}${typeof data.by === "string" ? ` (@${data.by})` : ""}; read the issue and carry on.`;
    case "budget_raised":
      return `${subject}: the budget was raised to $${String(data.toUsd)}${data.resumed ? "; the lease is no longer paused — carry on" : ""}.`;
    case "stalled":
      return `${subject}: the App sees no progress (no push, pull request, phase or spend) since ${String(data.stalledSince)}; report a phase or push your work.`;
    case "superseded":
    case "revoked":
      // The loss ends the loop: its notice says it.
      return null;
    case "released":
      // This session's own release: the tool that released it said so.
      return null;
  }
}

/** What the agent must be told when a heartbeat loop ended on its own; nothing for a normal stop. */
export function lossNotice(lease: LeaseFile, end: LoopEnd): string | null {
  const subject = formatSubject(lease);
  const stop =
    "This session no longer holds it: stop working on it now — no commit, push, pull request or merge for it.";
  const detail = "error" in end && isClaimHoldError(end.error) ? end.error : undefined;
  switch (end.kind) {
    case "released":
    case "stopped":
      return null;
    case "superseded": {
      const by = detail?.details.by as { login?: string; runtime?: string; sessionId?: string } | undefined;
      const who = by ? [by.login, by.runtime, by.sessionId && `session ${by.sessionId}`].filter(Boolean) : [];
      const generation = detail?.details.generation;
      return (
        `LOST ${subject}: the claim was superseded${who.length ? ` by ${who.join(" ")}` : ""}` +
        `${generation ? ` (now generation ${generation})` : ""}. ${stop}`
      );
    }
    case "gone": {
      const reason = detail?.details.reason;
      return `LOST ${subject}: the lease has ended${reason ? ` (${String(reason)})` : ""}. ${stop} Claim it again only if it is still free.`;
    }
    case "expired":
      return `LOST ${subject}: the claim-hold server stayed unreachable until the lease expired. ${stop} Claim it again once the server answers.`;
    case "failed":
      return (
        `Heartbeats for ${subject} stopped: ${(end.error as Error)?.message ?? "unexpected answer"}. ` +
        "The claim will go stale; call verify_hold before doing more work on it."
      );
  }
}
