/** @jsxImportSource hono/jsx */
// The fleet over time: the chosen range's timeline (1 h to 7 d) with its legend and bounds, spend per subject, recent notifications.
import type { Child, FC } from "hono/jsx";
import type { FleetView } from "../read-fleet.js";
import { RecentNotifications, RetryingNotifications, SubjectLink } from "../recent-notifications.js";
import type { TimelineData } from "./read-timeline.js";
import { timelineLanes, timelineRepositories, timelineSubjects } from "./read-timeline.js";
import { type BarState, endedBarStates, layoutTimeline, markerKinds } from "./timeline-layout.js";
import { rangeOfWindow, type TimelineRange, timelineRangeLabels, timelineRanges } from "./timeline-range.js";
import { colourOf, MarkerShape, markerLabels, TimelineSvg } from "./timeline-svg.js";

/** Legend swatches use classes (the CSP allows no inline style attribute); see `timelineStyles`. */
export function timelineStyles(stateColours: Record<string, string>): string {
  const swatches = [...Object.keys(stateColours), ...endedBarStates]
    .map((state) => `.swatch[data-state="${state}"]{background:${colourOf(state as BarState, stateColours)}}`)
    .join("");
  // On a narrow screen the drawing keeps a readable size and scrolls; right-to-left scrolling opens it at now.
  return `.timeline-scroll{overflow-x:auto;background:#fff;border:1px solid #d0d7de;direction:rtl}
svg.timeline{display:block;width:100%;min-width:900px;height:auto;direction:ltr}
.legend{display:flex;flex-wrap:wrap;gap:.3rem .9rem;margin:.4rem 0;font-size:.85rem}
.swatch{display:inline-block;width:.9rem;height:.9rem;border-radius:3px;vertical-align:-2px;margin-right:.25rem}
.legend svg{vertical-align:-3px;margin-right:.25rem}
.ranges{display:inline-flex;gap:.25rem;margin-left:.6rem;font-size:.85rem;font-weight:400;vertical-align:2px}
.ranges a{padding:.05rem .45rem;border:1px solid #d0d7de;border-radius:1rem;text-decoration:none;white-space:nowrap}
.ranges a[aria-current="true"]{background:#0969da;border-color:#0969da;color:#fff}${swatches}`;
}

function boundsNote(data: TimelineData, lanesLeftOut: number): string | null {
  const notes: string[] = [];
  if (data.left.repositories > 0)
    notes.push(
      `${data.left.repositories} repositories beyond the first ${timelineRepositories} are not read`,
    );
  if (data.left.subjects > 0)
    notes.push(`${data.left.subjects} less recently active subjects beyond ${timelineSubjects} are left out`);
  if (lanesLeftOut > 0) notes.push(`${lanesLeftOut} lanes beyond ${timelineLanes} are left out`);
  if (data.left.recordsTruncated) notes.push("some repositories hold more records than one read lists");
  return notes.length > 0 ? `Bounded view: ${notes.join("; ")}.` : null;
}

const Legend: FC<{ states: readonly string[] }> = ({ states }) => (
  <div class="legend">
    {states.map((state) => (
      <span>
        <span class="swatch" data-state={state} />
        {state}
      </span>
    ))}
    {markerKinds.map((kind) => (
      <span data-legend-marker={kind}>
        <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">
          <MarkerShape kind={kind} x={7} y={7} />
        </svg>
        {markerLabels[kind]}
      </span>
    ))}
  </div>
);

const rangeShort: Record<TimelineRange, string> = { "1h": "1 h", "6h": "6 h", "24h": "24 h", "7d": "7 d" };

/** Links, not a script: each keeps the page's other query parameters and works without JavaScript. */
const RangeSelector: FC<{ current: TimelineRange; hrefOf: (range: TimelineRange) => string }> = ({
  current,
  hrefOf,
}) => (
  <nav class="ranges" aria-label="Time range">
    {(Object.keys(timelineRanges) as TimelineRange[]).map((range) => (
      <a href={hrefOf(range)} data-range={range} aria-current={range === current ? "true" : "false"}>
        {rangeShort[range]}
      </a>
    ))}
  </nav>
);

export const TimelinePanel: FC<{
  data: TimelineData;
  view: FleetView;
  stateColours: Record<string, string>;
  /** The page's repository filter narrows the timeline and the spend too. */
  repo?: string | undefined;
  /** The page's address with another time range; absent: no range selector. */
  rangeHref?: (range: TimelineRange) => string;
  /** A waiting notification's retry and drop forms; absent: none. */
  deliveryActions?: ((deliveryId: string) => Child) | undefined;
}> = ({ data, view, stateColours, repo, rangeHref, deliveryActions }) => {
  const range = rangeOfWindow(data.windowMs);
  const label = timelineRangeLabels[range];
  const inRepo = (subject: { repo: string }) => !repo || subject.repo === repo;
  const spend = data.spend?.filter(inRepo) ?? null;
  const live = new Map(view.claims.map((c) => [c.subject, { state: c.state, reasons: c.reasons }]));
  const layout = layoutTimeline({
    subjects: data.subjects.filter(inRepo),
    live,
    notifications: data.notifications ?? [],
    now: data.now,
    windowMs: data.windowMs,
    maxLanes: timelineLanes,
  });
  const shownStates = [...new Set(layout.lanes.flatMap((lane) => lane.bars.map((bar) => bar.state)))].sort();
  const note = boundsNote(data, layout.lanesLeftOut);
  return (
    <div id="history">
      <section id="timeline">
        <h2>
          {label}
          {rangeHref ? <RangeSelector current={range} hrefOf={rangeHref} /> : null}
        </h2>
        {note ? (
          <p class="muted" id="timeline-bounds">
            {note}
          </p>
        ) : null}
        {layout.lanes.length === 0 ? (
          <p class="muted">No claim was held in the {label.toLowerCase()}.</p>
        ) : (
          <div class="timeline-scroll">
            <TimelineSvg layout={layout} stateColours={stateColours} />
          </div>
        )}
        <Legend states={shownStates} />
      </section>
      {spend ? (
        <section id="spend">
          <h2>Spend per subject</h2>
          {spend.length === 0 ? (
            <p class="muted">No agent reported spend on the subjects shown.</p>
          ) : (
            <table>
              <tbody>
                {spend.map((s) => (
                  <tr data-spend-subject={s.subject}>
                    <td data-label="Subject">
                      <SubjectLink
                        web={data.webBaseOf(s.installationId)}
                        subject={s.subject}
                        installationId={s.installationId}
                      />
                    </td>
                    <td data-label="Spend">${s.usd.toFixed(2)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      ) : null}
      {data.retrying ? (
        <RetryingNotifications
          deliveries={data.retrying}
          webBaseOf={data.webBaseOf}
          now={data.now}
          actions={deliveryActions}
        />
      ) : null}
      {data.notifications ? (
        <RecentNotifications deliveries={data.notifications} webBaseOf={data.webBaseOf} now={data.now} />
      ) : null}
    </div>
  );
};
