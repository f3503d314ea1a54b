/** @jsxImportSource hono/jsx */
// The dashboard's queue panel of one repository: what `next` would pick, in order, and what it skips and why.
import type { FC } from "hono/jsx";
import type { QueuePanel } from "./read-queues.js";

/** Why `next` skips an issue, in words (the codes are the queue route's). */
const skipWords: Record<string, string> = {
  held: "held by a live agent claim",
  human: "a human holds it",
  blocked: "open blockers",
  "pr-open": "an open PR already closes it",
  filtered: "outside the queue's labels",
  exempt: "exempt label",
  "over-budget": "over budget",
  "sub-issues": "open sub-issues (tracking issue)",
  closed: "closed",
};

/** One repository's queue: what `claim-hold next` would pick, in order, then what it skips and why. */
export const QueueSection: FC<{ panel: QueuePanel; account?: string }> = ({ panel, account }) => (
  <section class="queue" data-repo={panel.repo}>
    <h3>
      {panel.repo} <span class="muted">· {account ?? `installation ${panel.installationId}`}</span>
    </h3>
    {panel.error ? <p class="error">The queue could not be read: {panel.error}</p> : null}
    {!panel.indexed ? (
      <p class="muted">Not indexed yet: the first pick or the next reconcile indexes it.</p>
    ) : null}
    {panel.indexed && !panel.error ? (
      <table>
        <thead>
          <tr>
            <th>Rank</th>
            <th>Issue</th>
            <th>Why here / why skipped</th>
          </tr>
        </thead>
        <tbody>
          {panel.queue.map((row) => (
            <tr data-queue-issue={String(row.issue)}>
              <td data-label="Rank">{row.rank}</td>
              <td data-label="Issue">
                <b>#{row.issue}</b> {row.title}
              </td>
              <td data-label="Why">{row.reasons.join(", ")}</td>
            </tr>
          ))}
          {panel.queue.length === 0 ? (
            <tr>
              <td data-label="Rank">—</td>
              <td data-label="Issue" class="muted">
                Nothing eligible: next answers queue_empty.
              </td>
              <td />
            </tr>
          ) : null}
          {panel.skipped.map((skip) => (
            <tr data-skipped-issue={String(skip.issue)} class="muted">
              <td data-label="Rank">skipped</td>
              <td data-label="Issue">#{skip.issue}</td>
              <td data-label="Why">
                {skip.reason}
                {skipWords[skip.reason] ? ` — ${skipWords[skip.reason]}` : ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    ) : null}
    {panel.truncated ? (
      <p class="muted">More issues than the panel shows: claim-hold queue {panel.repo}.</p>
    ) : null}
  </section>
);
