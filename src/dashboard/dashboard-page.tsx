/** @jsxImportSource hono/jsx */
// The fleet dashboard's markup (docs/deploy.md#8-watch-it), server-rendered with Hono's JSX: every interpolated value is escaped.
import { createHash } from "node:crypto";
import type { FC } from "hono/jsx";
import type { DerivedState } from "../lease/reads/derive-state.js";
import { branchUrl, issueUrl, pullUrl, subjectPageUrl } from "./github-links.js";
import { attentionItems, NeedsYou } from "./needs-you.js";
import { QueueSection } from "./queue-section.js";
import type { FleetClaim, FleetView } from "./read-fleet.js";
import type { QueuePanel } from "./read-queues.js";
import { duration, utcText, When } from "./relative-time.js";
import type { TimelineData } from "./timeline/read-timeline.js";
import { TimelinePanel, timelineStyles } from "./timeline/timeline-panel.js";
import { defaultTimelineRange, type TimelineRange } from "./timeline/timeline-range.js";

/** Colour of each derived state; the state's name is always shown beside it (never colour alone). */
export const stateColours: Record<DerivedState, string> = {
  active: "#1a7f37",
  waiting: "#0969da",
  "awaiting-review": "#8250df",
  stale: "#9a6700",
  reclaimable: "#cf222e",
  human: "#1b7c83",
  "human-idle": "#57606a",
  phantom: "#bf3989",
  conflicted: "#bc4c00",
  unknown: "#6e7781",
  free: "#6e7781",
};

export const refreshEveryMs = 2_000;

/** Colours come from the stylesheet (the CSP allows no inline style attribute). */
export const styles = `
*{box-sizing:border-box}body{font:14px/1.4 system-ui,sans-serif;margin:0;padding:1rem;color:#1f2328;background:#f6f8fa}
h1{font-size:1.3rem;margin:0 0 .5rem}h2{font-size:1.05rem;margin:1.2rem 0 .4rem}h3{font-size:.95rem;margin:.8rem 0 .3rem}
header.bar{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem .8rem}header.bar h1{margin:0;flex:1 0 auto}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem;margin:.5rem 0}select,input,button{font:inherit;padding:.3rem .5rem}
form.inline{display:inline;margin:0}
table{border-collapse:collapse;width:100%;background:#fff}th,td{padding:.35rem .5rem;border-bottom:1px solid #d0d7de;text-align:left;vertical-align:top}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:1rem;color:#fff;font-weight:600;white-space:nowrap}
.muted{color:#57606a}.counts span{margin-right:.8rem;white-space:nowrap}.report{background:#fff;padding:.6rem;border:1px solid #d0d7de}
time,.num{white-space:nowrap}.gh{font-size:.8rem;margin-left:.3rem}
.halted{color:#cf222e;font-weight:700}.login{max-width:22rem;margin:10vh auto;background:#fff;padding:1.2rem;border:1px solid #d0d7de}
.error{color:#cf222e}
.needs-you{background:#fff8c5;border:1px solid #d4a72c;padding:.2rem .6rem;margin:.5rem 0}.needs-you.calm{background:#fff;border-color:#d0d7de}
.needs-you h2{margin:.3rem 0}.needs-you ul{margin:.2rem 0;padding-left:1.1rem}.needs-you li{margin:.15rem 0}
.attention-kind{font-weight:700;color:#9a6700;white-space:nowrap}
#live-toggle[aria-pressed="false"]{background:#fff8c5}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;background:#fff;border:1px solid #d0d7de;padding:.6rem;margin:0}
dl.facts dt{font-weight:600;color:#57606a}dl.facts dd{margin:0}

${Object.entries(stateColours)
  .map(([state, colour]) => `.badge[data-state="${state}"]{background:${colour}}`)
  .join("")}
@media (max-width:700px){body{padding:.5rem}h2{margin:.7rem 0 .3rem}
thead{display:none}table,tbody,tr,td{display:block;width:100%}tr{margin:0 0 .8rem;border:1px solid #d0d7de}
td{border:none;padding:.2rem .5rem}td::before{content:attr(data-label) ": ";font-weight:600;color:#57606a}
table.claims tr{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:0 .5rem;margin:0 0 .3rem;padding:.25rem .45rem;background:#fff}
table.claims td{padding:0;width:auto;min-width:0}table.claims td::before{content:none}
table.claims td.wide,table.claims .reasons,table.claims .branch{display:none}
table.claims .title,table.claims td[data-label="Holder"]{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
table.claims td[data-label="State"],table.claims td[data-label="Heartbeat"]{text-align:right}
table.history tr{display:grid;grid-template-columns:auto auto minmax(0,1fr);gap:0 .6rem;margin:0 0 .3rem;padding:.25rem .45rem;background:#fff}
table.history td{padding:0;width:auto}table.history td::before{content:none}
table.history td[data-label="Who"],table.history td[data-label="Note"]{grid-column:1/-1}
table.history td[data-label="Gen"]::before{content:"g"}
.needs-you .title{display:none}
dl.facts{gap:.15rem .6rem}}
table.history tr[data-transition="reaped"],table.history tr[data-transition="superseded"]{background:#fff5f5}
${timelineStyles(stateColours)}
`;

/** Off by a click (kept for the tab's session); without JavaScript the page is a plain page and reloads by hand. */
const refreshScript = `(() => {
  const target = document.getElementById("fleet");
  const toggle = document.getElementById("live-toggle");
  const every = Number(target.dataset.refreshMs) || ${refreshEveryMs};
  let live = sessionStorage.getItem("claim-hold-live") !== "paused";
  function show() {
    toggle.setAttribute("aria-pressed", String(live));
    toggle.textContent = live ? "Live: on (pause)" : "Paused (resume)";
  }
  toggle.hidden = false;
  show();
  toggle.addEventListener("click", () => {
    live = !live;
    sessionStorage.setItem("claim-hold-live", live ? "live" : "paused");
    show();
    if (live) refresh();
  });
  async function refresh() {
    if (!live) return;
    try {
      const response = await fetch("/dashboard/fragment" + location.search, { credentials: "same-origin" });
      if (response.status === 401) { location.assign("/login"); return; }
      if (response.ok && live) target.innerHTML = await response.text();
    } catch (_) { /* the next tick retries */ }
  }
  setInterval(refresh, every);
  for (const select of document.querySelectorAll("form.filters select")) {
    select.addEventListener("change", () => select.form.submit());
  }
})();`;

const hashOf = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

/** Inline script and style are allowed by hash only: an injected <script> could not run even if it got through. */
export const contentSecurityPolicy = [
  "default-src 'none'",
  `script-src ${hashOf(refreshScript)}`,
  `style-src ${hashOf(styles)}`,
  "connect-src 'self'",
  "form-action 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

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

/** One claim; `wide` cells are left out of the phone's compact row (the subject page has them all). */
const ClaimRow: FC<{ claim: FleetClaim; web: string; now: number }> = ({ claim, web, now }) => (
  <tr class="claim" data-subject={claim.subject} data-state={claim.state}>
    <td data-label="Subject">
      <a href={subjectPageUrl(claim.repo, claim.issue)} data-subject-page>
        <b>{claim.subject}</b>
      </a>
      <a class="gh" href={issueUrl(web, claim.repo, claim.issue)} title="The issue on GitHub">
        GitHub
      </a>
      {claim.title ? <div class="muted title">{claim.title}</div> : null}
      {claim.branch ? (
        <div class="muted branch">
          branch <a href={branchUrl(web, claim.repo, claim.branch)}>{claim.branch}</a>
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
          <a href={pullUrl(web, claim.repo, pr.number)}>#{pr.number}</a>{" "}
          {pr.verdict ? <span data-verdict={pr.verdict}>{pr.verdict}</span> : "verdict unknown"}
        </div>
      ))}
    </td>
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
}> = ({ view, filter, queues = [], history, accounts = accountLabels(new Map()) }) => {
  const web = history?.githubWebUrl ?? "https://github.com";
  const now = Date.parse(view.generatedAt);
  const claims = view.claims.filter(
    (c) => (!filter.repo || c.repo === filter.repo) && (!filter.state || c.state === filter.state),
  );
  const installations = [...new Set(claims.map((c) => c.installationId))];
  return (
    <div>
      <NeedsYou items={attentionItems(view, accounts.of)} />
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
              </tr>
            </thead>
            <tbody>
              {claims
                .filter((c) => c.installationId === installationId)
                .map((claim) => (
                  <ClaimRow claim={claim} web={web} now={now} />
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
        />
      ) : null}
      <h2>Janitor</h2>
      <JanitorReport report={view.janitor} now={now} accounts={accounts} />
    </div>
  );
};

/** The head and stylesheet every dashboard page shares. */
export const PageShell: FC<{ title: string; children?: unknown }> = ({ title, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{title}</title>
      <style dangerouslySetInnerHTML={{ __html: styles }} />
    </head>
    <body>{children}</body>
  </html>
);

export const DashboardPage: FC<{
  view: FleetView;
  filter: FleetFilter;
  states: readonly DerivedState[];
  queues?: QueuePanel[];
  history?: TimelineData | null;
  accounts?: AccountLabels;
}> = ({ view, filter, states, queues = [], history, accounts }) => (
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
      />
    </div>
    <script dangerouslySetInnerHTML={{ __html: refreshScript }} />
  </PageShell>
);

export const LoginPage: FC<{ error?: string }> = ({ error }) => (
  <PageShell title="claim-hold — log in">
    <form class="login" method="post" action="/login">
      <h1>claim-hold fleet</h1>
      <p>Log in with the operator token (CLAIM_HOLD_ADMIN_TOKEN).</p>
      {error ? <p class="error">{error}</p> : null}
      <input type="password" name="token" autocomplete="current-password" required aria-label="Admin token" />{" "}
      <button type="submit">Log in</button>
    </form>
  </PageShell>
);
