// Needs-human (SPEC §4.2): a heartbeat with `needsHuman: true` and a blocker asks for a person; the next one without it clears; pure.

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
