/** @jsxImportSource hono/jsx */
// The outbox's last settled deliveries (docs/deploy.md#8-watch-it): when, which event, on what subject, to which sink (its id, never its URL), how it went.
import type { Child, FC } from "hono/jsx";
import { forgeTitle, type WebBase, type WebBaseOf } from "../domain/web-links.js";
import type { RecentDelivery, RetryingDelivery } from "../providers/outbox-store.js";
import { issueUrl, parseSubject, subjectPageUrl } from "./github-links.js";
import { When } from "./relative-time.js";

/** The subject's dashboard page, and the issue on its forge (GitHub or a Gitea instance) beside it. */
/** The subject's page and its issue on its forge; no forge link for a record of no forge served (`web` null). */
export const SubjectLink: FC<{ web: WebBase | null; subject: string; installationId: number }> = ({
  web,
  subject,
  installationId,
}) => {
  const parsed = parseSubject(subject);
  if (!parsed) return <span>{subject}</span>;
  return (
    <span>
      <a href={subjectPageUrl(parsed.repo, parsed.issue, installationId)}>{subject}</a>
      {web ? (
        <a
          class="gh"
          href={issueUrl(web, parsed.repo, parsed.issue)}
          title={`The issue on ${forgeTitle(web.forge)}`}
        >
          {forgeTitle(web.forge)}
        </a>
      ) : null}
    </span>
  );
};

export const RecentNotifications: FC<{
  deliveries: readonly RecentDelivery[];
  /** Each delivery's installation record's forge web base. */
  webBaseOf: WebBaseOf;
  /** Given: times read relative to it ("3 min ago"), the UTC time on hover. */
  now?: number;
}> = ({ deliveries, webBaseOf, now }) => (
  <section id="recent-notifications">
    <h2>Recent notifications</h2>
    {deliveries.length === 0 ? (
      <p class="muted">No notification has been delivered or dropped yet.</p>
    ) : (
      <table>
        <thead>
          <tr>
            <th>When</th>
            <th>Event</th>
            <th>Subject</th>
            <th>Sink</th>
            <th>Result</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr data-notification={d.event} data-result={d.result}>
              <td data-label="When">
                {now !== undefined ? (
                  <When at={d.at} now={now} />
                ) : (
                  new Date(d.at).toISOString().replace(/\.\d{3}Z$/, "Z")
                )}
              </td>
              <td data-label="Event">{d.event}</td>
              <td data-label="Subject">
                {d.subject ? (
                  <SubjectLink
                    web={webBaseOf(d.installationId)}
                    subject={d.subject}
                    installationId={d.installationId}
                  />
                ) : (
                  `installation ${d.installationId}`
                )}
              </td>
              <td data-label="Sink">{d.sinkId}</td>
              <td data-label="Result">
                {d.result} after {d.attempts} attempt(s)
                {d.reason ? <div class="muted">{d.reason}</div> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
  </section>
);

/**
 * The deliveries waiting for another try after a failed one, each with its operator actions (retry
 * now, drop) when the page has them. Dropped ones are in the recent list with their reason.
 */
export const RetryingNotifications: FC<{
  deliveries: readonly RetryingDelivery[];
  /** Each delivery's installation record's forge web base. */
  webBaseOf: WebBaseOf;
  now: number;
  /** A delivery's action forms (action-forms.tsx's `DeliveryActions`); absent: no action column. */
  actions?: ((deliveryId: string) => Child) | undefined;
}> = ({ deliveries, webBaseOf, now, actions }) => (
  <section id="retrying-notifications">
    <h2>Notifications waiting to retry</h2>
    {deliveries.length === 0 ? (
      <p class="muted">No notification is waiting for another try.</p>
    ) : (
      <table>
        <thead>
          <tr>
            <th>Next try</th>
            <th>Event</th>
            <th>Subject</th>
            <th>Sink</th>
            <th>Failed tries</th>
            {actions ? <th>Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr data-retrying={d.event}>
              <td data-label="Next try">
                <When at={d.dueAt} now={now} />
              </td>
              <td data-label="Event">{d.event}</td>
              <td data-label="Subject">
                {d.subject ? (
                  <SubjectLink
                    web={webBaseOf(d.installationId)}
                    subject={d.subject}
                    installationId={d.installationId}
                  />
                ) : (
                  `installation ${d.installationId}`
                )}
              </td>
              <td data-label="Sink">{d.sinkId}</td>
              <td data-label="Failed tries">{d.attempts}</td>
              {actions ? <td data-label="Actions">{actions(d.id)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    )}
  </section>
);
