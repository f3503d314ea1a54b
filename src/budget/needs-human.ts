// Needs-human (docs/agents.md#asking-for-a-person): a heartbeat with `needsHuman: true` and a blocker asks for a person; the next one without it clears; pure.

export type NeedsHumanChange =
  /** Newly asked: label the subject, one comment naming the blocker, a `needs-human` notification. */
  | { kind: "asked"; blocker: string }
  /** No longer asked: the label comes off. */
  | { kind: "cleared" }
  | { kind: "unchanged" };

/**
 * The change one heartbeat makes. The flag is the heartbeat's own (absent = false), so a holder
 * that stops asking clears it; asking again while already asking (even with another blocker) is
 * no news, so a holder heartbeating every few minutes posts one comment, not one per beat.
 */
export function needsHumanChange(
  before: boolean,
  heartbeat: { needsHuman?: boolean | undefined; blocker?: string | undefined },
): NeedsHumanChange {
  const now = heartbeat.needsHuman === true;
  if (now === before) return { kind: "unchanged" };
  if (now) return { kind: "asked", blocker: heartbeat.blocker ?? "" };
  return { kind: "cleared" };
}

/** The body rule: asking for a person must say why, in the same heartbeat. Null when the body is fine. */
export function needsHumanProblem(heartbeat: {
  needsHuman?: boolean | undefined;
  blocker?: string | undefined;
}): string | null {
  if (heartbeat.needsHuman === true && !heartbeat.blocker?.trim()) {
    return "needsHuman: true needs a blocker saying what the person should do";
  }
  return null;
}

/** What the App last showed of a subject's needs-human ask (one generation), kept for the throttle. */
export interface NeedsHumanShown {
  /** The label as last written, when, and for which generation (a new claim starts without a label). */
  label?: { shown: boolean; at: number; generation?: number };
  /** The mention comment last posted (its node id once GitHub returned it) and its text. */
  comment?: { at: number; nodeId?: string; body: string };
  notifiedAt?: number;
}

/** A label is written at most this often per subject, however often the flag flips. */
export const needsHumanLabelSpacingMs = 60_000;

export interface NeedsHumanPlan {
  /** The label to write now (null: none, GitHub already shows it or the last write is too recent). */
  label: "add" | "remove" | null;
  /** The label write waits: due at this time (settled then by the next heartbeat or reconcile). */
  labelDueAt: number | null;
  comment: { kind: "new"; body: string } | { kind: "edit"; nodeId: string; body: string } | null;
  notify: boolean;
  shown: NeedsHumanShown;
}

/**
 * The throttle (docs/reference/github-surfaces.md#needs-human): one label write per subject per
 * minute, one mention comment per cooldown (a repeat with another text edits it), one
 * notification per cooldown. `desired`: the label the record calls for; `body`: the comment an
 * ask would post (null when the change is not an ask).
 */
export function planNeedsHuman(input: {
  desired: boolean;
  body: string | null;
  shown: NeedsHumanShown;
  now: number;
  cooldownMs: number;
}): NeedsHumanPlan {
  const { desired, body, now, cooldownMs } = input;
  const shown: NeedsHumanShown = { ...input.shown };
  let label: NeedsHumanPlan["label"] = null;
  let labelDueAt: number | null = null;
  if (shown.label?.shown !== desired) {
    const due = shown.label ? shown.label.at + needsHumanLabelSpacingMs : now;
    if (due <= now) {
      label = desired ? "add" : "remove";
      shown.label = { shown: desired, at: now };
    } else labelDueAt = due;
  }
  let comment: NeedsHumanPlan["comment"] = null;
  let notify = false;
  if (body !== null) {
    const recent = shown.comment && now - shown.comment.at < cooldownMs ? shown.comment : undefined;
    if (!recent) {
      comment = { kind: "new", body };
      shown.comment = { at: now, body };
    } else if (recent.body !== body && recent.nodeId) {
      comment = { kind: "edit", nodeId: recent.nodeId, body };
      shown.comment = { ...recent, body };
    }
    if (shown.notifiedAt === undefined || now - shown.notifiedAt >= cooldownMs) {
      notify = true;
      shown.notifiedAt = now;
    }
  }
  return { label, labelDueAt, comment, notify, shown };
}
