/** @jsxImportSource hono/jsx */
// The subject page's heartbeats: an inline SVG sparkline of the gaps between a generation's beats (no script; colours from the stylesheet, as the CSP wants), its figures in its title for screen readers.
import type { FC } from "hono/jsx";
import type { ClaimRecord } from "../domain/claim.js";
import type { HeartbeatGaps } from "../providers/liveness-store.js";
import { gapText, sparkBox, sparklineGeometry } from "./sparkline-geometry.js";

/** The gaps of the record's generation, or of the ended one before it that last beat (a reap bumps the record's). */
export const HeartbeatSparkline: FC<{ gaps: HeartbeatGaps | null; record: ClaimRecord | null }> = ({
  gaps,
  record,
}) => {
  // A live generation's own gaps only: a new one starts afresh.
  const fresh = record?.state === "active" && gaps?.generation !== record.generation;
  const geometry = gaps && record && !fresh ? sparklineGeometry(gaps.gapsMs, record.durations) : null;
  if (!gaps || !record || !geometry) {
    return (
      <section id="heartbeats">
        <h2>Heartbeats</h2>
        <p class="muted">
          {fresh
            ? `Generation ${record.generation} has sent no heartbeat yet.`
            : "The store keeps no heartbeat gaps of this subject (they lapse a week after the last beat)."}
        </p>
      </section>
    );
  }
  const { heartbeatMs, ttlMs } = record.durations;
  const late = geometry.points.filter((p) => p.level !== "on-time").length;
  const label =
    `Gaps between the last ${gaps.gapsMs.length} heartbeats of generation ${gaps.generation}: ` +
    `min ${gapText(geometry.minMs)}, median ${gapText(geometry.medianMs)}, max ${gapText(geometry.maxMs)}; ` +
    `heartbeat interval ${gapText(heartbeatMs)}; ${late} at or past the ttl (${gapText(ttlMs)}).`;
  return (
    <section id="heartbeats">
      <h2>Heartbeats</h2>
      <svg
        id="heartbeat-sparkline"
        class="sparkline"
        role="img"
        aria-label={label}
        viewBox={`0 0 ${sparkBox.width} ${sparkBox.height}`}
        width={String(sparkBox.width)}
        height={String(sparkBox.height)}
        data-generation={String(gaps.generation)}
      >
        <title>{label}</title>
        <line
          data-reference-ms={String(heartbeatMs)}
          x1={String(sparkBox.pad)}
          x2={String(sparkBox.width - sparkBox.pad)}
          y1={String(geometry.referenceY)}
          y2={String(geometry.referenceY)}
        />
        <polyline points={geometry.polyline} />
        {geometry.points.map((p) => (
          <circle
            cx={String(p.x)}
            cy={String(p.y)}
            r={p.level === "on-time" ? "1.8" : "3.2"}
            data-gap-ms={String(p.gapMs)}
            data-level={p.level}
          >
            <title>{`${gapText(p.gapMs)}${p.level === "on-time" ? "" : ` (${p.level})`}`}</title>
          </circle>
        ))}
      </svg>
      <p class="muted">
        Oldest left. Dashed: the heartbeat interval ({gapText(heartbeatMs)}); amber: a gap at or past the ttl
        ({gapText(ttlMs)}), when a takeover could supersede the claim; red: at or past reclaimAfter (across a
        declared wait).
      </p>
    </section>
  );
};
