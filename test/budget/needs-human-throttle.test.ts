// The needs-human throttle as a table: one label write a minute, one comment and one notice per cooldown.
import { describe, expect, it } from "vitest";
import { type NeedsHumanShown, planNeedsHuman } from "../../src/budget/needs-human.js";

const cooldownMs = 30 * 60_000;
const t = 1_000_000;

interface Row {
  name: string;
  desired: boolean;
  body: string | null;
  shown: NeedsHumanShown;
  now: number;
  expected: {
    label: "add" | "remove" | null;
    labelDueAt: number | null;
    comment: string | null;
    notify: boolean;
  };
}

const rows: Row[] = [
  {
    name: "a first ask: label, comment, notice",
    desired: true,
    body: "ask",
    shown: {},
    now: t,
    expected: { label: "add", labelDueAt: null, comment: "new", notify: true },
  },
  {
    name: "cleared 5 s after the label went on: the write waits out its minute",
    desired: false,
    body: null,
    shown: { label: { shown: true, at: t }, comment: { at: t, body: "ask" }, notifiedAt: t },
    now: t + 5_000,
    expected: { label: null, labelDueAt: t + 60_000, comment: null, notify: false },
  },
  {
    name: "cleared a minute after: the label comes off",
    desired: false,
    body: null,
    shown: { label: { shown: true, at: t } },
    now: t + 60_000,
    expected: { label: "remove", labelDueAt: null, comment: null, notify: false },
  },
  {
    name: "asked again while the label still shows, same text: nothing",
    desired: true,
    body: "ask",
    shown: { label: { shown: true, at: t }, comment: { at: t, nodeId: "IC_1", body: "ask" }, notifiedAt: t },
    now: t + 2_000,
    expected: { label: null, labelDueAt: null, comment: null, notify: false },
  },
  {
    name: "asked again inside the cooldown with another text: the comment is edited, no notice",
    desired: true,
    body: "other",
    shown: { label: { shown: true, at: t }, comment: { at: t, nodeId: "IC_1", body: "ask" }, notifiedAt: t },
    now: t + 120_000,
    expected: { label: null, labelDueAt: null, comment: "edit", notify: false },
  },
  {
    name: "another text but the comment's id unknown: nothing is posted",
    desired: true,
    body: "other",
    shown: { label: { shown: true, at: t }, comment: { at: t, body: "ask" }, notifiedAt: t },
    now: t + 120_000,
    expected: { label: null, labelDueAt: null, comment: null, notify: false },
  },
  {
    name: "asked after the cooldown: a new comment and a notice",
    desired: true,
    body: "ask",
    shown: { label: { shown: false, at: t }, comment: { at: t, nodeId: "IC_1", body: "ask" }, notifiedAt: t },
    now: t + cooldownMs,
    expected: { label: "add", labelDueAt: null, comment: "new", notify: true },
  },
];

describe("planNeedsHuman", () => {
  it.each(rows)("$name", ({ desired, body, shown, now, expected }) => {
    const plan = planNeedsHuman({ desired, body, shown, now, cooldownMs });
    expect({
      label: plan.label,
      labelDueAt: plan.labelDueAt,
      comment: plan.comment?.kind ?? null,
      notify: plan.notify,
    }).toEqual(expected);
  });

  it("remembers what it wrote, so the next plan is throttled by it", () => {
    const first = planNeedsHuman({ desired: true, body: "ask", shown: {}, now: t, cooldownMs });
    expect(first.shown).toEqual({
      label: { shown: true, at: t },
      comment: { at: t, body: "ask" },
      notifiedAt: t,
    });
    const second = planNeedsHuman({
      desired: false,
      body: null,
      shown: first.shown,
      now: t + 1_000,
      cooldownMs,
    });
    expect(second.label).toBeNull();
  });
});
