/** @jsxImportSource hono/jsx */
// The fleet dashboard's markup (docs/deploy.md#8-watch-it), server-rendered with Hono's JSX: every interpolated value is escaped.
import type { FC } from "hono/jsx";
import { subjectAddressOf } from "../domain/subject-address.js";
import { forgeTitle, type WebBase, type WebBaseOf, webBasesOf } from "../domain/web-links.js";
import type { DerivedState } from "../lease/reads/derive-state.js";
import { ClaimActions, DeliveryActions, JanitorControls } from "./action-forms.js";
import { branchUrl, issueUrl, pullUrl, subjectPageUrl } from "./github-links.js";
import { attentionItems, NeedsYou } from "./needs-you.js";
import { PageShell, refreshEveryMs, refreshScript, stateColours } from "./page-shell.js";
import { QueueSection } from "./queue-section.js";
import type { FleetClaim, FleetView } from "./read-fleet.js";
import type { QueuePanel } from "./read-queues.js";
import { duration, utcText, When } from "./relative-time.js";
import type { TimelineData } from "./timeline/read-timeline.js";
import { TimelinePanel } from "./timeline/timeline-panel.js";
import { defaultTimelineRange, type TimelineRange } from "./timeline/timeline-range.js";

export { ago, duration } from "./relative-time.js";

export const StateBadge: FC<{ state: DerivedState }> = ({ state }) => (
  <span class="badge" data-state={state}>
    {state}
  </span>
);

export const Holder: FC<{ holder: FleetClaim["holder"] }> = ({ holder }) => (
  <span>
    {holder.kind === "agent" ? (holder.runtime ?? "agent") : "human"} <b>@{holder.login}</b>
    {holder.sessionId ? <span class="muted"> · session {holder.sessionId}</span> : null}
    {holder.host ? <span class="muted"> · host {holder.host}</span> : null}
  </span>
);

/** The action forms' token and each installation's janitor state (absent: no actions). */
export interface FleetControls {
  token: string;
  installations: { id: number; label: string; paused: boolean }[];
}

/** Without the timeline's web bases (no history read): github.com for every record. */
const githubOnly: WebBaseOf = webBasesOf({ github: "https://github.com" });

/** One claim; `wide` cells are left out of the phone's compact row (the subject page has them all, actions too). */
const ClaimRow: FC<{ claim: FleetClaim; web: WebBase | null; now: number; token?: string | undefined }> = ({
  claim,
  web,
  now,
  token,
}) => (
  <tr class="claim" data-subject={claim.subject} data-state={claim.state}>
    <td data-label="Subject">
      <a href={subjectPageUrl(claim.repo, claim.issue, claim.installationId)} data-subject-page>
        <b>{claim.subject}</b>
      </a>
      {/* A record of no forge served (web null) links nowhere: its repository is not a served one's. */}
      {web ? (
        <a
          class="gh"
          href={issueUrl(web, claim.repo, claim.issue)}
          title={`The issue on ${forgeTitle(web.forge)}`}
        >
          {forgeTitle(web.forge)}
        </a>
      ) : null}
      {claim.title ? <div class="muted title">{claim.title}</div> : null}
      {claim.branch ? (
        <div class="muted branch">
          branch {web ? <a href={branchUrl(web, claim.repo, claim.branch)}>{claim.branch}</a> : claim.branch}
        </div>
      ) : null}
    </td>
    <td data-label="State">
      <StateBadge state={claim.state} />
      <div class="muted reasons">{claim.reasons.join(", ")}</div>
    </td>
    <td data-label="Holder">
      <Holder holder={claim.holder} />
    </td>
    <td data-label="Class" class="wide">
      {claim.taskClass}
    </td>
    <td data-label="Gen" class="wide">
      {claim.generation}
    </td>
    <td data-label="Age" class="wide">
      <time datetime={claim.claimedAt} title={`claimed ${utcText(Date.parse(claim.claimedAt))}`}>
        {duration(claim.claimAgeSeconds)}
      </time>
    </td>
    <td data-label="Heartbeat">
      {claim.holder.kind === "human" ? "—" : <When at={Date.parse(claim.lastHeartbeatAt)} now={now} />}
    </td>
    <td data-label="Phase" class="wide">
      {claim.phase ?? ""}
      {claim.blocker ? <div class="muted">blocked: {claim.blocker}</div> : null}
    </td>
    <td data-label="PRs" class="wide">
      {claim.pullRequests.map((pr) => (
        <div>
          {web ? <a href={pullUrl(web, claim.repo, pr.number)}>#{pr.number}</a> : `#${pr.number}`}{" "}
          {pr.verdict ? <span data-verdict={pr.verdict}>{pr.verdict}</span> : "verdict unknown"}
        </div>
      ))}
    </td>
    {token ? (
      <td data-label="Actions" class="wide">
        <ClaimActions
          token={token}
          subject={subjectAddressOf(claim.installationId, claim.repo, claim.issue)}
          generation={claim.generation}
          holder={claim.holder.kind}
        />
      </td>
    ) : null}
  </tr>
);

const JanitorReport: FC<{ report: FleetView["janitor"]; now: number; accounts: AccountLabels }> = ({
  report,
  now,
  accounts,
}) => {
  if (!report) return <p class="muted">The janitor has not reported yet.</p>;
  const byKind = new Map<string, number>();
  for (const action of report.actions) byKind.set(action.action, (byKind.get(action.action) ?? 0) + 1);
  return (
    <div class="report" id="janitor-report">
      <div>
        Last sweep{" "}
        <b>
          <When at={Date.parse(report.at)} now={now} />
        </b>{" "}
        — examined {report.examined} in {report.installations} installation(s), {report.durationMs} ms,{" "}
        {report.githubRequests} GitHub request(s){report.dryRun ? ", dry run" : ""}.
      </div>
      <div>
        {report.halted ? (
          <span class="halted">
            Halted (disruption guard) for {report.haltedInstallations.map(accounts.of).join(", ")}.
          </span>
        ) : (
          "Not halted."
        )}{" "}
        {report.pausedInstallations?.length
          ? `Paused by an operator: ${report.pausedInstallations.map(accounts.of).join(", ")}. `
          : ""}
        Actions:{" "}
        {report.actions.length === 0 ? "none" : [...byKind].map(([kind, n]) => `${kind} ×${n}`).join(", ")}
        {`; skipped ${report.skipped}.`}
      </div>
      {report.actions.length > 0 ? (
        <ul>
          {report.actions.slice(0, 50).map((action) => (
            <li>
              {action.subject}: {action.action} ({action.reason})
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
};

export interface FleetFilter {
  repo?: string;
  state?: DerivedState;
  /** The timeline's range (`?range=`); absent: the default. */
  range?: TimelineRange;
}

/** Installation names: the account's login once GitHub told it, else the id. */
export interface AccountLabels {
  of: (installationId: number) => string;
}

export function accountLabels(logins: ReadonlyMap<number, string>): AccountLabels {
  return { of: (id) => logins.get(id) ?? `installation ${id}` };
}

/** The page's address with the filter, one part changed (what the range links point at). */
export function pageHref(filter: FleetFilter, change: Partial<FleetFilter>): string {
  const merged = { ...filter, ...change };
  const query = new URLSearchParams();
  if (merged.repo) query.set("repo", merged.repo);
  if (merged.state) query.set("state", merged.state);
  if (merged.range && merged.range !== defaultTimelineRange) query.set("range", merged.range);
  const text = query.toString();
  return text ? `/?${text}` : "/";
}

/** The part the page refreshes: what needs a person, counts, the claims table per installation, queues, history, the janitor's report. */
export const FleetFragment: FC<{
  view: FleetView;
  filter: FleetFilter;
  queues?: QueuePanel[];
  history?: TimelineData | null;
  accounts?: AccountLabels;
  controls?: FleetControls;
}> = ({ view, filter, queues = [], history, accounts = accountLabels(new Map()), controls }) => {
  const webBaseOf = history?.webBaseOf ?? githubOnly;
  const now = Date.parse(view.generatedAt);
  const claims = view.claims.filter(
    (c) => (!filter.repo || c.repo === filter.repo) && (!filter.state || c.state === filter.state),
  );
  const installations = [...new Set(claims.map((c) => c.installationId))];
  return (
    <div>
      <NeedsYou items={attentionItems(view, accounts.of)} token={controls?.token} />
      <p class="counts">
        {Object.entries(view.counts).map(([state, count]) => (
          <span>
            <StateBadge state={state as DerivedState} /> {count}
          </span>
        ))}
        <span class="muted">
          as of <time title={utcText(now)}>{view.generatedAt.slice(11, 19)} UTC</time>
        </span>
      </p>
      {view.truncated ? <p class="error">Some repositories hold more records than one page shows.</p> : null}
      {claims.length === 0 ? <p id="no-claims">No claims match.</p> : null}
      {installations.map((installationId) => (
        <section data-installation={String(installationId)}>
          <h2 title={`installation ${installationId}`}>{accounts.of(installationId)}</h2>
          <table class="claims">
            <thead>
              <tr>
                <th>Subject</th>
                <th>State</th>
                <th>Holder</th>
                <th>Class</th>
                <th>Gen</th>
                <th>Age</th>
                <th>Heartbeat</th>
                <th>Phase</th>
                <th>PRs</th>
                {controls ? <th>Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {claims
                .filter((c) => c.installationId === installationId)
                .map((claim) => (
                  <ClaimRow
                    claim={claim}
                    web={webBaseOf(claim.installationId)}
                    now={now}
                    token={controls?.token}
                  />
                ))}
            </tbody>
          </table>
        </section>
      ))}
      {queues.length > 0 ? <h2>Queue</h2> : null}
      {queues
        .filter((panel) => !filter.repo || panel.repo === filter.repo)
        .map((panel) => (
          <QueueSection panel={panel} account={accounts.of(panel.installationId)} />
        ))}
      {history ? (
        <TimelinePanel
          data={history}
          view={view}
          stateColours={stateColours}
          repo={filter.repo}
          rangeHref={(range) => pageHref(filter, { range })}
          deliveryActions={
            controls
              ? (delivery) => <DeliveryActions token={controls.token} delivery={delivery} />
              : undefined
          }
        />
      ) : null}
      <h2>Janitor</h2>
      <JanitorReport report={view.janitor} now={now} accounts={accounts} />
      {controls ? <JanitorControls token={controls.token} installations={controls.installations} /> : null}
    </div>
  );
};

export const DashboardPage: FC<{
  view: FleetView;
  filter: FleetFilter;
  states: readonly DerivedState[];
  queues?: QueuePanel[];
  history?: TimelineData | null;
  accounts?: AccountLabels;
  controls?: FleetControls;
}> = ({ view, filter, states, queues = [], history, accounts, controls }) => (
  <PageShell title="claim-hold fleet">
    <header class="bar">
      <h1>claim-hold fleet</h1>
      {/* Shown by the script: without JavaScript nothing refreshes, so there is nothing to pause. */}
      <button type="button" id="live-toggle" aria-pressed="true" hidden>
        Live: on (pause)
      </button>
      <form class="inline" method="post" action="/logout">
        <button type="submit">Log out</button>
      </form>
    </header>
    <form class="filters" method="get" action="/">
      <label>
        Repository{" "}
        <select name="repo">
          <option value="">all</option>
          {view.repos.map((repo) => (
            <option value={repo} selected={repo === filter.repo}>
              {repo}
            </option>
          ))}
        </select>
      </label>
      <label>
        State{" "}
        <select name="state">
          <option value="">all</option>
          {states.map((state) => (
            <option value={state} selected={state === filter.state}>
              {state}
            </option>
          ))}
        </select>
      </label>
      {filter.range && filter.range !== defaultTimelineRange ? (
        <input type="hidden" name="range" value={filter.range} />
      ) : null}
      <noscript>
        <button type="submit">Filter</button>
      </noscript>
    </form>
    <div id="fleet" data-refresh-ms={String(refreshEveryMs)}>
      <FleetFragment
        view={view}
        filter={filter}
        queues={queues}
        history={history ?? null}
        {...(accounts ? { accounts } : {})}
        {...(controls ? { controls } : {})}
      />
    </div>
    <script dangerouslySetInnerHTML={{ __html: refreshScript }} />
  </PageShell>
);
