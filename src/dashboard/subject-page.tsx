/** @jsxImportSource hono/jsx */
// One subject's page (`/subjects/{owner}/{repo}/{n}`, another forge's `/subjects/{forge}/{record}/{owner}/{repo}/{n}`): its claim history by generation, holder, heartbeats (a sparkline of their gaps), phase, blocker, spend, notifications and PRs with their verdicts.
import type { FC } from "hono/jsx";
import { subjectAddressOf } from "../domain/subject-address.js";
import { forgeTitle } from "../domain/web-links.js";
import { ActionButton } from "./action-forms.js";
import { Holder, StateBadge } from "./dashboard-page.js";
import { commentUrl, commitChecksUrl, issueUrl, pullChecksUrl, pullUrl } from "./github-links.js";
import { HeartbeatSparkline } from "./heartbeat-sparkline.js";
import { PageShell } from "./page-shell.js";
import type { SubjectPageData } from "./read-subject.js";
import { RecentNotifications } from "./recent-notifications.js";
import { utcText, When } from "./relative-time.js";

const History: FC<{ data: SubjectPageData }> = ({ data }) => {
  const history = data.view.history; // newest first, as the store keeps it
  return (
    <section id="history">
      <h2>Claim history</h2>
      {history.length === 0 ? (
        <p class="muted">The store holds no transition of this subject.</p>
      ) : (
        <table class="history">
          <thead>
            <tr>
              <th>When</th>
              <th>Gen</th>
              <th>What</th>
              <th>Who</th>
              <th>Note</th>
            </tr>
          </thead>
          <tbody>
            {history.map((t) => (
              <tr data-transition={t.kind} data-generation={String(t.generation)}>
                <td data-label="When">
                  <When at={Date.parse(t.at)} now={data.now} />
                </td>
                <td data-label="Gen">{t.generation}</td>
                <td data-label="What">{t.kind}</td>
                <td data-label="Who">{t.actor ? <Holder holder={t.actor} /> : "—"}</td>
                <td data-label="Note">{t.note ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
};

/** The last beat and when the lease lapses; the gaps before it are the sparkline's. */
const Facts: FC<{ data: SubjectPageData }> = ({ data }) => {
  const { view, record, web, now } = data;
  return (
    <dl class="facts" id="facts">
      <dt>State</dt>
      <dd>
        <StateBadge state={view.state} /> <span class="muted">{view.reasons.join(", ")}</span>
      </dd>
      <dt>Holder</dt>
      <dd>{view.actor ? <Holder holder={view.actor} /> : "nobody"}</dd>
      <dt>Generation</dt>
      <dd>
        {view.generation ?? "—"}
        {record ? <span class="muted"> · record {record.state}</span> : null}
      </dd>
      <dt>Task class</dt>
      <dd>{view.taskClass ?? "—"}</dd>
      <dt>Claimed</dt>
      <dd>{view.claimedAt ? <When at={Date.parse(view.claimedAt)} now={now} /> : "—"}</dd>
      <dt>Last heartbeat</dt>
      <dd>
        {view.lastHeartbeatAt && view.actor?.kind === "agent" ? (
          <When at={Date.parse(view.lastHeartbeatAt)} now={now} />
        ) : (
          "—"
        )}
        {view.expiresAt ? (
          <span class="muted">
            {" "}
            · stale <When at={Date.parse(view.expiresAt)} now={now} />
          </span>
        ) : null}
      </dd>
      <dt>Phase</dt>
      <dd>{view.phase ?? "—"}</dd>
      <dt>Blocker</dt>
      <dd id="blocker">
        {view.blocker ?? "—"}
        {record?.needsHuman ? <b> (asks for a person)</b> : null}
      </dd>
      <dt>Spend</dt>
      <dd class="num">
        ${view.spendUsd.toFixed(2)}
        {record?.budgetExhausted ? " — budget exhausted" : ""}
      </dd>
      <dt>Branch</dt>
      <dd>{view.branch ?? "—"}</dd>
      <dt>Assignees</dt>
      <dd>{view.assignees ? view.assignees.map((login) => `@${login}`).join(", ") || "none" : "unknown"}</dd>
      <dt>Claim comment</dt>
      <dd>
        {record?.commentId && web ? (
          <a href={commentUrl(web, data.repo, data.issue, record.commentId)} id="claim-comment">
            the claim comment on {forgeTitle(web.forge)}
          </a>
        ) : record?.commentId ? (
          `comment ${record.commentId}`
        ) : (
          "none recorded"
        )}
      </dd>
    </dl>
  );
};

const PullRequests: FC<{ data: SubjectPageData }> = ({ data }) => {
  const { web } = data;
  const indexed = new Set(data.pullRequests.map((pr) => pr.number));
  const others = data.view.linkedPullRequests.filter((n) => !indexed.has(n));
  return (
    <section id="pull-requests">
      <h2>Pull requests</h2>
      {data.pullRequests.length === 0 && others.length === 0 ? (
        <p class="muted">No open PR closes this issue.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>PR</th>
              <th>Head</th>
              <th>Verdict</th>
              <th>Checks</th>
            </tr>
          </thead>
          <tbody>
            {data.pullRequests.map((pr) => (
              <tr data-pull={String(pr.number)}>
                <td data-label="PR">
                  {web ? <a href={pullUrl(web, data.repo, pr.number)}>#{pr.number}</a> : `#${pr.number}`}{" "}
                  <span class="muted">by @{pr.author}</span>
                </td>
                <td data-label="Head">
                  {pr.headRef} <span class="muted">{pr.headSha.slice(0, 7)}</span>
                </td>
                <td data-label="Verdict">
                  {pr.verdict ? <span data-verdict={pr.verdict}>{pr.verdict}</span> : "verdict unknown"}
                </td>
                <td data-label="Checks">
                  {web ? <a href={commitChecksUrl(web, data.repo, pr.headSha)}>check runs</a> : "—"}
                </td>
              </tr>
            ))}
            {others.map((number) => (
              <tr data-pull={String(number)}>
                <td data-label="PR">
                  {web ? <a href={pullUrl(web, data.repo, number)}>#{number}</a> : `#${number}`}
                </td>
                <td data-label="Head" class="muted">
                  not indexed by the fence yet
                </td>
                <td data-label="Verdict">verdict unknown</td>
                <td data-label="Checks">
                  {web ? <a href={pullChecksUrl(web, data.repo, number)}>check runs</a> : "—"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
};

/** Release ends a live agent claim; anything else not free can be handed back to the queue; a subject that needs a person can be cleared. */
const SubjectActions: FC<{ data: SubjectPageData; token: string }> = ({ data, token }) => {
  const target = {
    // Another forge's subject names its installation record (domain/subject-address.ts).
    ...subjectAddressOf(data.installationId, data.repo, data.issue),
    ...(data.record ? { generation: data.record.generation } : {}),
  };
  const release = data.record?.state === "active";
  const requeue = !release && data.view.state !== "free";
  if (!release && !requeue && !data.needsPerson) return null;
  return (
    <section id="actions">
      <h2>Actions</h2>
      {data.needsPerson ? (
        <p id="needs-person">
          Needs a person:{" "}
          {[
            data.needsPerson.ask ? `@${data.needsPerson.ask.holder} asks for one` : null,
            data.needsPerson.trippedFailures !== null
              ? `the failure breaker tripped after ${data.needsPerson.trippedFailures} failed attempt(s)`
              : null,
          ]
            .filter((part) => part !== null)
            .join("; ")}
          .
        </p>
      ) : null}
      {data.needsPerson ? <ActionButton token={token} action="clear-needs-human" target={target} /> : null}
      {release ? <ActionButton token={token} action="release" target={target} /> : null}
      {requeue ? <ActionButton token={token} action="requeue" target={target} /> : null}
    </section>
  );
};

export const SubjectPage: FC<{ data: SubjectPageData; actionToken?: string }> = ({ data, actionToken }) => (
  <PageShell title={`${data.view.subject} — claim-hold`}>
    <p>
      <a href="/">← fleet</a>
    </p>
    <h1>
      {data.view.subject}{" "}
      {data.web ? (
        <a class="gh" href={issueUrl(data.web, data.repo, data.issue)}>
          {forgeTitle(data.web.forge)}
        </a>
      ) : null}
    </h1>
    {data.view.title ? <p id="subject-title">{data.view.title}</p> : null}
    <p class="muted">
      as of <time title={utcText(data.now)}>{new Date(data.now).toISOString().slice(11, 19)} UTC</time>
    </p>
    <Facts data={data} />
    {actionToken ? <SubjectActions data={data} token={actionToken} /> : null}
    <HeartbeatSparkline gaps={data.heartbeatGaps} record={data.record} />
    <History data={data} />
    <PullRequests data={data} />
    {data.notifications ? (
      <RecentNotifications deliveries={data.notifications} webBaseOf={() => data.web} now={data.now} />
    ) : null}
  </PageShell>
);
