/** @jsxImportSource hono/jsx */
// The timeline as server-rendered SVG: one lane per holder session, a bar per claim, a marker per event; Hono escapes every text.
import type { FC } from "hono/jsx";
import { subjectPageUrl } from "../github-links.js";
import type {
  BarState,
  MarkerKind,
  TimelineBar,
  TimelineLane,
  TimelineLayout,
  TimelineMarker,
} from "./timeline-layout.js";
import { rangeOfWindow, timelineRangeLabels } from "./timeline-range.js";

export const svgWidth = 1000;
const pad = 8;
const axisHeight = 22;
/** A lane: its label line, then one row per claim held at the same time. */
const barTop = 18;
const rowHeight = 18;
const laneGap = 4;
const barHeight = 14;
const hourMs = 3_600_000;

/** Colours of ended claims; held ones take the derived state's colour. */
export const endedColours: Record<string, string> = {
  released: "#8c959f",
  completed: "#2da44e",
  superseded: "#d4a72c",
  reaped: "#24292f",
  revoked: "#6e7781",
};

export const markerColours: Record<MarkerKind, string> = {
  takeover: "#bc4c00",
  reap: "#a40e26",
  reclaim: "#1b7c83",
  "needs-human": "#0969da",
  budget: "#8250df",
};

export const markerLabels: Record<MarkerKind, string> = {
  takeover: "takeover",
  reap: "reap",
  reclaim: "/reclaim",
  "needs-human": "needs a person",
  budget: "budget",
};

export function colourOf(state: BarState, stateColours: Record<string, string>): string {
  return endedColours[state] ?? stateColours[state] ?? "#6e7781";
}

function xOf(layout: TimelineLayout, at: number): number {
  const span = Math.max(1, layout.to - layout.from);
  return pad + ((at - layout.from) / span) * (svgWidth - 2 * pad);
}

function round(n: number): string {
  return n.toFixed(1);
}

export function holderLabel(lane: TimelineLane): string {
  const { holder } = lane;
  if (holder.kind === "human") return `@${holder.login} (human)`;
  return [
    `@${holder.login}`,
    holder.runtime,
    holder.sessionId ? `session ${holder.sessionId}` : null,
    holder.host ? `host ${holder.host}` : null,
  ]
    .filter((part) => part !== null)
    .join(" · ");
}

/** Subjects named on a lane's label before the rest are counted. */
const laneSubjectsNamed = 3;

/** What a lane shows: the subjects it held (owner/repo#n) and its holder. */
export function laneLabel(lane: TimelineLane): string {
  const subjects = [...new Set(lane.bars.map((bar) => bar.subject))];
  const named = subjects.slice(0, laneSubjectsNamed).join(", ");
  const more = subjects.length > laneSubjectsNamed ? ` +${subjects.length - laneSubjectsNamed}` : "";
  return subjects.length > 0 ? `${named}${more} — ${holderLabel(lane)}` : holderLabel(lane);
}

function time(at: number): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A marker's shape, centred on (x, y); the shape differs per kind so colour is never the only cue. */
export const MarkerShape: FC<{ kind: MarkerKind; x: number; y: number }> = ({ kind, x, y }) => {
  const fill = markerColours[kind];
  const r = 7;
  const common = { fill, stroke: "#ffffff", "stroke-width": "1.5" };
  switch (kind) {
    case "takeover":
      return (
        <path
          d={`M${round(x - r)} ${round(y - r)}H${round(x + r)}L${round(x)} ${round(y + r)}Z`}
          {...common}
        />
      );
    case "reap":
      return (
        <path
          d={`M${round(x - r)} ${round(y - r + 2)}L${round(x - r + 2)} ${round(y - r)}L${round(x)} ${round(y - 2)}L${round(x + r - 2)} ${round(y - r)}L${round(x + r)} ${round(y - r + 2)}L${round(x + 2)} ${round(y)}L${round(x + r)} ${round(y + r - 2)}L${round(x + r - 2)} ${round(y + r)}L${round(x)} ${round(y + 2)}L${round(x - r + 2)} ${round(y + r)}L${round(x - r)} ${round(y + r - 2)}L${round(x - 2)} ${round(y)}Z`}
          {...common}
        />
      );
    case "reclaim":
      return (
        <path
          d={`M${round(x)} ${round(y - r)}L${round(x + r)} ${round(y)}L${round(x)} ${round(y + r)}L${round(x - r)} ${round(y)}Z`}
          {...common}
        />
      );
    case "needs-human":
      return <circle cx={round(x)} cy={round(y)} r={String(r - 1)} {...common} />;
    case "budget":
      return (
        <rect
          x={round(x - r + 1)}
          y={round(y - r + 1)}
          width={String(2 * r - 2)}
          height={String(2 * r - 2)}
          {...common}
        />
      );
  }
};

const Bar: FC<{
  layout: TimelineLayout;
  bar: TimelineBar;
  y: number;
  stateColours: Record<string, string>;
}> = ({ layout, bar, y, stateColours }) => {
  const x = xOf(layout, bar.from);
  const width = Math.max(3, xOf(layout, bar.to) - x);
  return (
    <a href={subjectPageUrl(bar.repo, bar.issue, bar.installationId)}>
      <rect
        data-claim={bar.subject}
        data-state={bar.state}
        data-generation={String(bar.generation)}
        x={round(x)}
        y={String(y + barTop + bar.row * rowHeight)}
        width={round(width)}
        height={String(barHeight)}
        rx="3"
        fill={colourOf(bar.state, stateColours)}
      >
        <title>
          {`${bar.subject} (generation ${bar.generation}) ${bar.state}, ${time(bar.from)}${bar.clipped ? " (earlier)" : ""} – ${bar.open ? "now" : time(bar.to)}`}
        </title>
      </rect>
    </a>
  );
};

const Marker: FC<{ layout: TimelineLayout; marker: TimelineMarker; y: number }> = ({ layout, marker, y }) => (
  <g data-marker={marker.kind} data-on={marker.subject}>
    <MarkerShape
      kind={marker.kind}
      x={xOf(layout, marker.at)}
      y={y + barTop + marker.row * rowHeight + barHeight / 2}
    />
    <title>{`${markerLabels[marker.kind]} on ${marker.subject} at ${time(marker.at)}${marker.note ? ` (${marker.note})` : ""}`}</title>
  </g>
);

/** Tick spacing for the window: about eight ticks, each a round time. */
function tickEvery(spanMs: number): number {
  if (spanMs <= hourMs) return 10 * 60_000;
  if (spanMs <= 6 * hourMs) return hourMs;
  if (spanMs <= 24 * hourMs) return 3 * hourMs;
  return 24 * hourMs;
}

function ticksOf(layout: TimelineLayout): number[] {
  const every = tickEvery(layout.to - layout.from);
  const ticks: number[] = [];
  for (let at = Math.ceil(layout.from / every) * every; at <= layout.to; at += every) ticks.push(at);
  return ticks;
}

/** `HH:MM` within a day; `MM-DD` for day ticks. */
function tickLabel(at: number, spanMs: number): string {
  const iso = new Date(at).toISOString();
  return spanMs > 24 * hourMs ? iso.slice(5, 10) : iso.slice(11, 16);
}

export const TimelineSvg: FC<{
  layout: TimelineLayout;
  stateColours: Record<string, string>;
}> = ({ layout, stateColours }) => {
  const label = timelineRangeLabels[rangeOfWindow(layout.to - layout.from)];
  const tops: number[] = [];
  let height = axisHeight;
  for (const lane of layout.lanes) {
    tops.push(height);
    height += barTop + lane.rows * rowHeight + laneGap;
  }
  height += 4;
  const nowX = xOf(layout, layout.to);
  return (
    <svg
      class="timeline"
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${svgWidth} ${height}`}
      width="100%"
      role="img"
      aria-label={`Claims of the ${label.toLowerCase()}: ${layout.lanes.length} lane(s)`}
      font-family="system-ui, sans-serif"
    >
      {layout.lanes.map((lane, i) => (
        <rect
          x="0"
          y={String(tops[i])}
          width={String(svgWidth)}
          height={String(barTop + lane.rows * rowHeight + laneGap)}
          fill={i % 2 ? "#ffffff" : "#f6f8fa"}
        />
      ))}
      {ticksOf(layout).map((at) => {
        const tickX = xOf(layout, at);
        const x = round(tickX);
        // Labels at the edges stay inside the drawing.
        const anchor = tickX < 30 ? "start" : tickX > svgWidth - 30 ? "end" : "middle";
        return (
          <g>
            <line x1={x} x2={x} y1="16" y2={String(height)} stroke="#d0d7de" stroke-width="1" />
            <text x={x} y="12" font-size="11" fill="#57606a" text-anchor={anchor}>
              {tickLabel(at, layout.to - layout.from)}
            </text>
          </g>
        );
      })}
      <line
        x1={round(nowX)}
        x2={round(nowX)}
        y1="16"
        y2={String(height)}
        stroke="#1f2328"
        stroke-width="1.5"
      />
      {layout.lanes.map((lane, i) => {
        const y = tops[i]!;
        return (
          // The label ends at now: a narrow screen opens the drawing there.
          <g data-lane={lane.id} class="lane">
            <text
              x={String(svgWidth - pad - 4)}
              y={String(y + 13)}
              font-size="12"
              fill="#1f2328"
              text-anchor="end"
            >
              {laneLabel(lane)}
            </text>
            {lane.bars.map((bar) => (
              <Bar layout={layout} bar={bar} y={y} stateColours={stateColours} />
            ))}
            {lane.markers.map((marker) => (
              <Marker layout={layout} marker={marker} y={y} />
            ))}
          </g>
        );
      })}
    </svg>
  );
};
