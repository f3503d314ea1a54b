// The history checker: replays what every session was told and what the store and GitHub showed, and lists invariant violations.

export type HistoryEvent =
  | {
      kind: "claim";
      session: string;
      subject: string;
      status: number;
      generation?: number;
      /** On a supersede: the generation and session that were replaced. */
      previousGeneration?: number;
      appNow: number;
    }
  | {
      kind: "lease";
      op: "heartbeat" | "verify" | "release";
      session: string;
      subject: string;
      generation: number;
      status: number;
      code?: string;
      /** The session kept heartbeating on schedule: a refusal must have a cause other than silence. */
      live: boolean;
      appNow: number;
    }
  /** The store's current generation for the subject, read after a step. */
  | { kind: "store"; subject: string; generation: number; appNow: number }
  /** A human acted on the subject (`/reclaim`, unassigned the agent, closed it): agent refusals are expected. */
  | { kind: "human"; subject: string; action: string }
  /** A person assigned someone by hand. */
  | { kind: "human-assigned"; subject: string; login: string }
  /** The App removed an assignee (from the simulator's webhook record). */
  | { kind: "app-unassigned"; subject: string; login: string }
  /** After the final reconcile: an App-made assignment or a managed label without a record behind it. */
  | { kind: "orphan"; subject: string; detail: string }
  /** What the schedule did next (for the trace of a failing iteration; the checker skips it). */
  | { kind: "step"; name: string; detail?: string }
  /** GitHub changed while the store was unreachable. */
  | { kind: "outage-write"; detail: string };

export interface Violation {
  rule: string;
  detail: string;
  at: number;
}

/** How long a heartbeat keeps a holder live (the author class's ttl, used by every session here). */
export const liveForMs = 30 * 60_000;

export function checkHistory(events: HistoryEvent[]): Violation[] {
  const violations: Violation[] = [];
  const current = new Map<string, number>();
  const lastMinted = new Map<string, number>();
  const holderOf = new Map<string, string>();
  const lastAccepted = new Map<string, number>();
  const humanTouched = new Set<string>();
  const humanAssigned = new Set<string>();
  const fail = (rule: string, at: number, detail: string) => violations.push({ rule, detail, at });
  const raise = (subject: string, generation: number) =>
    current.set(subject, Math.max(current.get(subject) ?? 0, generation));

  events.forEach((event, at) => {
    switch (event.kind) {
      case "step":
        return;
      case "store":
        raise(event.subject, event.generation);
        return;
      case "human":
        humanTouched.add(event.subject);
        return;
      case "human-assigned":
        humanAssigned.add(`${event.subject}@${event.login}`);
        return;
      case "app-unassigned":
        // An explicit `/reclaim release` by a human may clear a human's assignment (invariant 5).
        if (humanAssigned.has(`${event.subject}@${event.login}`) && !humanTouched.has(event.subject)) {
          fail("human-assignment-touched", at, `the App unassigned @${event.login} from ${event.subject}`);
        }
        return;
      case "orphan":
        fail("orphan-after-reconcile", at, `${event.subject}: ${event.detail}`);
        return;
      case "outage-write":
        fail("github-changed-during-outage", at, event.detail);
        return;
      case "claim": {
        if (event.generation === undefined || (event.status !== 201 && event.status !== 200)) return;
        const key = `${event.subject}@${event.generation}`;
        const holder = holderOf.get(key);
        if (holder && holder !== event.session) {
          fail("two-holders", at, `${event.session} and ${holder} both got generation ${key}`);
        }
        holderOf.set(key, event.session);
        if (event.status === 201) {
          const minted = lastMinted.get(event.subject) ?? 0;
          if (event.generation <= minted) {
            fail("generation-not-increasing", at, `${event.subject}: ${event.generation} after ${minted}`);
          }
          lastMinted.set(event.subject, event.generation);
          if (event.previousGeneration !== undefined) {
            const previous = `${event.subject}@${event.previousGeneration}`;
            const previousHolder = holderOf.get(previous);
            const beat = lastAccepted.get(previous);
            if (
              previousHolder &&
              previousHolder !== event.session &&
              beat !== undefined &&
              event.appNow - beat < liveForMs &&
              !humanTouched.has(event.subject)
            ) {
              fail(
                "live-holder-superseded",
                at,
                `${event.session} took ${event.subject} from ${previousHolder}, whose heartbeat was ${Math.round((event.appNow - beat) / 1000)} s old`,
              );
            }
          }
        } else if (event.generation < (current.get(event.subject) ?? 0)) {
          fail("superseded-token-accepted", at, `re-claim of ${key} below ${current.get(event.subject)}`);
        }
        raise(event.subject, event.generation);
        lastAccepted.set(key, event.appNow);
        return;
      }
      case "lease": {
        const key = `${event.subject}@${event.generation}`;
        if (event.status === 200) {
          const now = current.get(event.subject) ?? 0;
          if (event.generation < now) {
            fail(
              "superseded-token-accepted",
              at,
              `${event.op} of ${key} answered 200 while generation ${now} was current`,
            );
          }
          if (event.op === "release") lastAccepted.delete(key);
          else lastAccepted.set(key, event.appNow);
          return;
        }
        // A release that failed on GitHub still ended the lease in the store: the holder let go.
        if (event.op === "release" && event.status >= 500) lastAccepted.delete(key);
        if (
          event.op === "heartbeat" &&
          event.live &&
          (event.status === 409 || event.status === 410) &&
          !humanTouched.has(event.subject)
        ) {
          fail(
            "live-agent-lost-lease",
            at,
            `${event.session}'s heartbeat on ${key} answered ${event.status} ${event.code ?? ""}`,
          );
        }
        return;
      }
    }
  });
  return violations;
}
