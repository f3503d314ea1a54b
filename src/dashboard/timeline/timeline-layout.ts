// The timeline's layout from the store's per-subject history: lanes per holder session, bars per claim, markers; pure.
import type { Actor, ClaimRecord, Transition } from "../../domain/claim.js";
import type { DerivedState } from "../../lease/reads/derive-state.js";
import type { RecentDelivery } from "../../providers/outbox-store.js";

/** One subject as the store knows it: its current record and its transitions, newest first (as `history` answers). */
export interface SubjectHistory {
  /** The store's installation record (a bar links to its subject's page on its forge); absent: GitHub's address. */
  installationId?: number;
  subject: string;
  repo: string;
  issue: number;
  record: ClaimRecord | null;
  transitions: readonly Transition[];
}

/** How a claim ended, or — still held — its derived state. */
export type BarState = DerivedState | "released" | "completed" | "superseded" | "reaped" | "revoked";

export const endedBarStates = ["released", "completed", "superseded", "reaped", "revoked"] as const;

export interface TimelineBar {
  /** As the subject's history gives it: its page's address names another forge's record. */
  installationId?: number;
  subject: string;
  repo: string;
  issue: number;
  generation: number;
  from: number;
  to: number;
  state: BarState;
  /** Still held: the bar runs to now. */
  open: boolean;
  /** It began before the window (drawn from the window's start). */
  clipped: boolean;
  branch: string | null;
  /** The lane's row: claims a session held at the same time are drawn one above the other. */
  row: number;
}

export type MarkerKind = "takeover" | "reap" | "reclaim" | "needs-human" | "budget";
export const markerKinds: readonly MarkerKind[] = ["takeover", "reap", "reclaim", "needs-human", "budget"];

export interface TimelineMarker {
  at: number;
  kind: MarkerKind;
  subject: string;
  /** Who or what caused it (a login, an event name). */
  note: string | null;
  /** The row of the claim it belongs to. */
  row: number;
}

export interface LaneHolder {
  kind: Actor["kind"];
  login: string;
  runtime: string | null;
  sessionId: string | null;
  host: string | null;
}

export interface TimelineLane {
  id: string;
  holder: LaneHolder;
  bars: TimelineBar[];
  markers: TimelineMarker[];
  rows: number;
}

export interface TimelineLayout {
  from: number;
  to: number;
  lanes: TimelineLane[];
  /** Lanes with activity in the window that the cap left out (the least recently active). */
  lanesLeftOut: number;
}

export interface LayoutInput {
  subjects: readonly SubjectHistory[];
  /** The derived state of each held claim, by subject (the fleet view's). */
  live: ReadonlyMap<string, { state: DerivedState; reasons: readonly string[] }>;
  notifications: readonly RecentDelivery[];
  now: number;
  windowMs: number;
  maxLanes: number;
}

/** One lane per agent session (login, runtime, session id); one per person for human claims. */
export function laneIdOf(actor: Actor): string {
  return actor.kind === "agent"
    ? `agent:${actor.login}:${actor.runtime ?? ""}:${actor.sessionId ?? ""}`
    : `human:${actor.login}`;
}

function holderOf(actor: Actor): LaneHolder {
  return {
    kind: actor.kind,
    login: actor.login,
    runtime: actor.runtime ?? null,
    sessionId: actor.sessionId ?? null,
    host: actor.host ?? null,
  };
}

interface Placed {
  laneId: string;
  bar: TimelineBar;
}

interface Collected {
  holders: Map<string, LaneHolder>;
  bars: Placed[];
  markers: { laneId: string; marker: TimelineMarker }[];
}

function isHeld(record: ClaimRecord | null): record is ClaimRecord {
  return record?.state === "active" || record?.state === "human";
}

/** A subject's bars and markers, walking its transitions oldest first. */
function collectSubject(history: SubjectHistory, input: LayoutInput, out: Collected): void {
  const { record, subject } = history;
  const open = new Map<number, { actor: Actor; from: number }>();
  const laneOf = (actor: Actor) => {
    const id = laneIdOf(actor);
    if (!out.holders.has(id)) out.holders.set(id, holderOf(actor));
    return id;
  };
  const placedBars: Placed[] = [];
  const mark = (laneId: string, at: number, kind: MarkerKind, note: string | null) =>
    out.markers.push({ laneId, marker: { at, kind, subject, note, row: 0 } });
  const close = (generation: number, at: number, state: BarState): Placed | null => {
    const started = open.get(generation);
    if (!started) return null;
    open.delete(generation);
    const placed: Placed = {
      laneId: laneOf(started.actor),
      bar: {
        ...(history.installationId !== undefined ? { installationId: history.installationId } : {}),
        subject,
        repo: history.repo,
        issue: history.issue,
        generation,
        from: started.from,
        to: at,
        state,
        open: false,
        clipped: false,
        branch: record?.generation === generation ? (record.branch ?? null) : null,
        row: 0,
      },
    };
    placedBars.push(placed);
    return placed;
  };
  // The history keeps the newest transitions only: the held record stands in for a trimmed claim.
  if (isHeld(record)) open.set(record.generation, { actor: record.actor, from: record.claimedAt });
  const reclaimsMarked = new Set<number>();
  for (const t of [...history.transitions].reverse()) {
    switch (t.kind) {
      case "claimed":
      case "restored":
      case "reclaimed": {
        const actor = t.actor ?? (record?.generation === t.generation ? record.actor : undefined);
        // A re-claim or a restore carries on the claim already open; only a claim starts one anew.
        if (actor && (t.kind === "claimed" || !open.has(t.generation))) {
          open.set(t.generation, { actor, from: t.at });
        }
        if (t.kind === "claimed" && actor?.kind === "human" && !reclaimsMarked.has(t.at)) {
          mark(laneOf(actor), t.at, "reclaim", `@${actor.login}`);
        }
        break;
      }
      case "superseded": {
        const placed = close(t.generation, t.at, "superseded");
        const by = t.actor;
        const kind: MarkerKind = by?.kind === "human" ? "reclaim" : "takeover";
        if (placed) {
          mark(placed.laneId, t.at, kind, by ? `@${by.login}` : null);
          if (kind === "reclaim") reclaimsMarked.add(t.at);
        }
        break;
      }
      case "released":
      case "completed":
      case "revoked": {
        const placed = close(t.generation, t.at, t.kind);
        if (!placed && t.kind === "released" && t.actor?.kind === "human" && !reclaimsMarked.has(t.at)) {
          // `/reclaim release` on a subject nobody held.
          mark(laneOf(t.actor), t.at, "reclaim", `@${t.actor.login}`);
        }
        if (placed && t.kind === "released" && record?.generation === t.generation && budgetEnded(record)) {
          mark(placed.laneId, t.at, "budget", "budget-exhausted");
        }
        break;
      }
      case "reaped": {
        const placed = close(t.generation, t.at, "reaped");
        if (placed) mark(placed.laneId, t.at, "reap", null);
        break;
      }
      case "rolled-back":
        // Its GitHub writes failed and it was undone: it never held the subject.
        open.delete(t.generation);
        break;
      case "takeover-requested":
        break;
    }
  }
  for (const [generation, started] of open) {
    const current = isHeld(record) && record.generation === generation;
    const state: BarState = current
      ? (input.live.get(subject)?.state ?? (record.state === "human" ? "human" : "active"))
      : "unknown";
    placedBars.push({
      laneId: laneOf(started.actor),
      bar: {
        ...(history.installationId !== undefined ? { installationId: history.installationId } : {}),
        subject,
        repo: history.repo,
        issue: history.issue,
        generation,
        from: started.from,
        to: current ? input.now : Math.max(started.from, record?.endedAt ?? input.now),
        state,
        open: current,
        clipped: false,
        branch: current ? (record.branch ?? null) : null,
        row: 0,
      },
    });
  }
  const live = input.live.get(subject);
  if (isHeld(record) && live?.reasons.includes("needs-human")) {
    mark(laneOf(record.actor), record.lastHeartbeatAt, "needs-human", record.blocker ?? null);
  }
  out.bars.push(...placedBars);
}

/** The budget helper's flag on an ended record (absent from stores that keep no spend). */
function budgetEnded(record: ClaimRecord): boolean {
  return (record as ClaimRecord & { budgetExhausted?: boolean }).budgetExhausted === true;
}

const notificationMarkers: Partial<Record<RecentDelivery["event"], MarkerKind>> = {
  "needs-human": "needs-human",
  "budget-warn": "budget",
  "budget-exhausted": "budget",
};

/** Needs-human and budget notifications, once per event (a delivery per sink), on the lane holding the subject then. */
function collectNotifications(input: LayoutInput, out: Collected): void {
  const seen = new Set<string>();
  for (const delivery of input.notifications) {
    const kind = notificationMarkers[delivery.event];
    const eventId = delivery.id.split(".")[0]!;
    if (!kind || !delivery.subject || seen.has(eventId)) continue;
    seen.add(eventId);
    const onSubject = out.bars.filter((p) => p.bar.subject === delivery.subject && p.bar.from <= delivery.at);
    const holding =
      onSubject.find((p) => p.bar.to >= delivery.at) ?? onSubject.sort((a, b) => b.bar.to - a.bar.to)[0];
    if (!holding) continue;
    const duplicate = out.markers.some(
      (m) =>
        m.marker.kind === kind &&
        m.marker.subject === delivery.subject &&
        Math.abs(m.marker.at - delivery.at) < 5 * 60_000,
    );
    if (duplicate) continue;
    out.markers.push({
      laneId: holding.laneId,
      marker: { at: delivery.at, kind, subject: delivery.subject, note: delivery.event, row: 0 },
    });
  }
}

/** Packs overlapping claims of a lane into rows (first row free), and puts each marker on its claim's row. */
function assignRows(lane: TimelineLane): void {
  const rowEnds: number[] = [];
  for (const bar of lane.bars) {
    let row = rowEnds.findIndex((end) => end <= bar.from);
    if (row === -1) row = rowEnds.length;
    rowEnds[row] = bar.to;
    bar.row = row;
  }
  lane.rows = Math.max(1, rowEnds.length);
  for (const marker of lane.markers) {
    const own = lane.bars.filter((b) => b.subject === marker.subject);
    const holding =
      own.find((b) => b.from <= marker.at && marker.at <= b.to) ??
      own.sort((a, b) => Math.abs(a.to - marker.at) - Math.abs(b.to - marker.at))[0];
    marker.row = holding?.row ?? 0;
  }
}

/** Lanes of the last `windowMs`: most recently active first, at most `maxLanes`. */
export function layoutTimeline(input: LayoutInput): TimelineLayout {
  const to = input.now;
  const from = to - input.windowMs;
  const out: Collected = { holders: new Map(), bars: [], markers: [] };
  for (const subject of input.subjects) collectSubject(subject, input, out);
  collectNotifications(input, out);
  const lanes = new Map<string, TimelineLane>();
  const laneFor = (id: string) => {
    let lane = lanes.get(id);
    if (!lane) {
      lane = { id, holder: out.holders.get(id)!, bars: [], markers: [], rows: 1 };
      lanes.set(id, lane);
    }
    return lane;
  };
  for (const { laneId, bar } of out.bars) {
    if (bar.to < from || bar.from > to) continue;
    laneFor(laneId).bars.push(bar.from < from ? { ...bar, from, clipped: true } : bar);
  }
  for (const { laneId, marker } of out.markers) {
    if (marker.at < from || marker.at > to) continue;
    laneFor(laneId).markers.push(marker);
  }
  const lastActivity = (lane: TimelineLane) =>
    Math.max(...lane.bars.map((b) => b.to), ...lane.markers.map((m) => m.at));
  const sorted = [...lanes.values()].sort(
    (a, b) => lastActivity(b) - lastActivity(a) || a.id.localeCompare(b.id),
  );
  for (const lane of sorted) {
    lane.bars.sort((a, b) => a.from - b.from || a.subject.localeCompare(b.subject));
    lane.markers.sort((a, b) => a.at - b.at || a.kind.localeCompare(b.kind));
    assignRows(lane);
  }
  return {
    from,
    to,
    lanes: sorted.slice(0, input.maxLanes),
    lanesLeftOut: Math.max(0, sorted.length - input.maxLanes),
  };
}
