import { describe, expect, it } from "vitest";
import type { ClaimRecord } from "../src/domain/claim.js";
import { asksForPerson, decideStallAsk, type OnStall, type StallAskEvent } from "../src/domain/stall.js";

const rows: Array<{
  event: StallAskEvent;
  onStall?: OnStall;
  asks: boolean;
  holderAsks?: boolean;
  after: boolean;
  label: "add" | "remove" | null;
  notify: boolean;
}> = [
  // Made once, with the stalled mark, and only under needs-human (the default).
  { event: "stalled", asks: false, after: true, label: "add", notify: true },
  { event: "stalled", onStall: "needs-human", asks: false, after: true, label: "add", notify: true },
  { event: "stalled", onStall: "reclaimable", asks: false, after: false, label: null, notify: false },
  { event: "stalled", asks: true, after: true, label: null, notify: false },
  { event: "stalled", asks: false, holderAsks: true, after: false, label: null, notify: false },
  // Progress withdraws it: the label comes off unless the holder asks itself.
  { event: "progress", asks: true, after: false, label: "remove", notify: false },
  { event: "progress", asks: true, holderAsks: true, after: false, label: null, notify: false },
  { event: "progress", asks: false, after: false, label: null, notify: false },
  // The holder's own ask takes over: the label stays, now the holder's.
  { event: "holder-asks", asks: true, holderAsks: true, after: false, label: null, notify: false },
  { event: "holder-asks", asks: false, holderAsks: true, after: false, label: null, notify: false },
  // A person's answer withdraws it: a reply takes the label off, a removal already did.
  { event: "person-replied", asks: true, after: false, label: "remove", notify: false },
  { event: "person-replied", asks: true, holderAsks: true, after: false, label: null, notify: false },
  { event: "person-cleared", asks: true, after: false, label: null, notify: false },
  { event: "person-replied", asks: false, after: false, label: null, notify: false },
];

describe("decideStallAsk: event × onStall × the App's ask × the holder's ask → ask, label, notification", () => {
  it.each(rows)("$event, onStall $onStall, asks $asks, holder asks $holderAsks → $after, $label", (row) => {
    expect(
      decideStallAsk({
        onStall: row.onStall,
        asks: row.asks,
        holderAsks: row.holderAsks ?? false,
        event: row.event,
      }),
    ).toEqual({ asks: row.after, label: row.label, notify: row.notify });
  });
});

describe("asksForPerson: the needs-human label GitHub should show", () => {
  const cases: Array<[Partial<ClaimRecord>, boolean]> = [
    [{ state: "active" }, false],
    [{ state: "active", needsHuman: true }, true],
    [{ state: "active", stallAsk: true }, true],
    [{ state: "released", stallAsk: true }, false],
    [{ state: "reaped", needsHuman: true }, false],
  ];
  it.each(cases)("%o → %s", (record, shown) => {
    expect(asksForPerson(record as ClaimRecord)).toBe(shown);
  });
});
