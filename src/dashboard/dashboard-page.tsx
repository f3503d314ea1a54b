/** @jsxImportSource hono/jsx */
// The fleet dashboard's markup (docs/deploy.md#8-watch-it), server-rendered with Hono's JSX: every interpolated value is escaped.
import { createHash } from "node:crypto";
import type { FC } from "hono/jsx";
import type { DerivedState } from "../lease/reads/derive-state.js";
import { branchUrl, issueUrl, pullUrl } from "./github-links.js";
import { QueueSection } from "./queue-section.js";
import type { FleetClaim, FleetView } from "./read-fleet.js";
import type { QueuePanel } from "./read-queues.js";
import type { TimelineData } from "./timeline/read-timeline.js";
import { TimelinePanel, timelineStyles } from "./timeline/timeline-panel.js";

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
const styles = `
*{box-sizing:border-box}body{font:14px/1.4 system-ui,sans-serif;margin:0;padding:1rem;color:#1f2328;background:#f6f8fa}
h1{font-size:1.3rem;margin:0 0 .5rem}h2{font-size:1.05rem;margin:1.2rem 0 .4rem}h3{font-size:.95rem;margin:.8rem 0 .3rem}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem;margin:.5rem 0}select,input,button{font:inherit;padding:.3rem .5rem}
table{border-collapse:collapse;width:100%;background:#fff}th,td{padding:.35rem .5rem;border-bottom:1px solid #d0d7de;text-align:left;vertical-align:top}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:1rem;color:#fff;font-weight:600;white-space:nowrap}
.muted{color:#57606a}.counts span{margin-right:.8rem}.report{background:#fff;padding:.6rem;border:1px solid #d0d7de}
.halted{color:#cf222e;font-weight:700}.login{max-width:22rem;margin:10vh auto;background:#fff;padding:1.2rem;border:1px solid #d0d7de}
.error{color:#cf222e}
${Object.entries(stateColours)
  .map(([state, colour]) => `.badge[data-state="${state}"]{background:${colour}}`)
  .join("")}
@media (max-width:700px){thead{display:none}table,tbody,tr,td{display:block;width:100%}tr{margin:0 0 .8rem;border:1px solid #d0d7de}
td{border:none;padding:.2rem .5rem}td::before{content:attr(data-label) ": ";font-weight:600;color:#57606a}}
${timelineStyles(stateColours)}
`;

const refreshScript = `(() => {
  const target = document.getElementById("fleet");
  const every = Number(target.dataset.refreshMs) || ${refreshEveryMs};
  async function refresh() {
    try {
      const response = await fetch("/dashboard/fragment" + location.search, { credentials: "same-origin" });
      if (response.status === 401) { location.assign("/login"); return; }
      if (response.ok) target.innerHTML = await response.text();
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

/** "41 s ago", "5 min ago", "3 h ago", "2 d ago". */
export function ago(seconds: number): string {
  return `${duration(seconds)} ago`;
}

export function duration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7_200) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3_600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

const StateBadge: FC<{ state: DerivedState }> = ({ state }) => (
  <span class="badge" data-state={state}>
    {state}
  </span>
);

const Holder: FC<{ claim: FleetClaim }> = ({ claim }) => {
  const { holder } = claim;
  return (
    <span>
      {holder.kind === "agent" ? (holder.runtime ?? "agent") : "human"} <b>@{holder.login}</b>
      {holder.sessionId ? <span class="muted"> · session {holder.sessionId}</span> : null}
      {holder.host ? <span class="muted"> · host {holder.host}</span> : null}
    </span>
  );
};

const ClaimRow: FC<{ claim: FleetClaim; web: string }> = ({ claim, web }) => (
  <tr data-subject={claim.subject} data-state={claim.state}>
    <td data-label="Subject">
      <a href={issueUrl(web, claim.repo, claim.issue)}>
        <b>{claim.subject}</b>
      </a>
      {claim.title ? <div class="muted">{claim.title}</div> : null}
      {claim.branch ? (
        <div class="muted">
          branch <a href={branchUrl(web, claim.repo, claim.branch)}>{claim.branch}</a>
        </div>
      ) : null}
    </td>
    <td data-label="State">
      <StateBadge state={claim.state} />
      <div class="muted">{claim.reasons.join(", ")}</div>
    </td>
    <td data-label="Holder">
      <Holder claim={claim} />
    </td>
    <td data-label="Class">{claim.taskClass}</td>
    <td data-label="Gen">{claim.generation}</td>
    <td data-label="Age">{duration(claim.claimAgeSeconds)}</td>
    <td data-label="Heartbeat" title={claim.lastHeartbeatAt}>
      {claim.holder.kind === "human" ? "—" : ago(claim.lastHeartbeatAgoSeconds)}
    </td>
    <td data-label="Phase">
      {claim.phase ?? ""}
      {claim.blocker ? <div class="muted">blocked: {claim.blocker}</div> : null}
    </td>
    <td data-label="PRs">
      {claim.pullRequests.map((pr) => (
        <div>
          <a href={pullUrl(web, claim.repo, pr.number)}>#{pr.number}</a>{" "}
          {pr.verdict ? <span data-verdict={pr.verdict}>{pr.verdict}</span> : "verdict unknown"}
        </div>
      ))}
    </td>
  </tr>
);

const JanitorReport: FC<{ report: FleetView["janitor"] }> = ({ report }) => {
  if (!report) return <p class="muted">The janitor has not reported yet.</p>;
  const byKind = new Map<string, number>();
  for (const action of report.actions) byKind.set(action.action, (byKind.get(action.action) ?? 0) + 1);
  return (
    <div class="report" id="janitor-report">
      <div>
        Last sweep <b>{report.at}</b> — examined {report.examined} in {report.installations} installation(s),{" "}
        {report.durationMs} ms, {report.githubRequests} GitHub request(s){report.dryRun ? ", dry run" : ""}.
      </div>
      <div>
        {report.halted ? (
          <span class="halted">
            Halted (disruption guard) for installation(s) {report.haltedInstallations.join(", ")}.
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
}

/** The part the page refreshes: counts, the claims table per installation, the janitor's report. */
export const FleetFragment: FC<{
  view: FleetView;
  filter: FleetFilter;
  queues?: QueuePanel[];
  history?: TimelineData | null;
}> = ({ view, filter, queues = [], history }) => {
  const web = history?.githubWebUrl ?? "https://github.com";
  const claims = view.claims.filter(
    (c) => (!filter.repo || c.repo === filter.repo) && (!filter.state || c.state === filter.state),
  );
  const installations = [...new Set(claims.map((c) => c.installationId))];
  return (
    <div>
      <p class="counts">
        {Object.entries(view.counts).map(([state, count]) => (
          <span>
            <StateBadge state={state as DerivedState} /> {count}
          </span>
        ))}
        <span class="muted">as of {view.generatedAt}</span>
      </p>
      {view.truncated ? <p class="error">Some repositories hold more records than one page shows.</p> : null}
      {claims.length === 0 ? <p id="no-claims">No claims match.</p> : null}
      {installations.map((installationId) => (
        <section>
          <h2>Installation {installationId}</h2>
          <table>
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
                  <ClaimRow claim={claim} web={web} />
                ))}
            </tbody>
          </table>
        </section>
      ))}
      {queues.length > 0 ? <h2>Queue</h2> : null}
      {queues
        .filter((panel) => !filter.repo || panel.repo === filter.repo)
        .map((panel) => (
          <QueueSection panel={panel} />
        ))}
      {history ? (
        <TimelinePanel data={history} view={view} stateColours={stateColours} repo={filter.repo} />
      ) : null}
      <h2>Janitor</h2>
      <JanitorReport report={view.janitor} />
    </div>
  );
};

export const DashboardPage: FC<{
  view: FleetView;
  filter: FleetFilter;
  states: readonly DerivedState[];
  queues?: QueuePanel[];
  history?: TimelineData | null;
}> = ({ view, filter, states, queues = [], history }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>claim-hold fleet</title>
      <style dangerouslySetInnerHTML={{ __html: styles }} />
    </head>
    <body>
      <h1>claim-hold fleet</h1>
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
        <noscript>
          <button type="submit">Filter</button>
        </noscript>
      </form>
      <form method="post" action="/logout">
        <button type="submit">Log out</button>
      </form>
      <div id="fleet" data-refresh-ms={String(refreshEveryMs)}>
        <FleetFragment view={view} filter={filter} queues={queues} history={history ?? null} />
      </div>
      <script dangerouslySetInnerHTML={{ __html: refreshScript }} />
    </body>
  </html>
);

export const LoginPage: FC<{ error?: string }> = ({ error }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>claim-hold — log in</title>
      <style dangerouslySetInnerHTML={{ __html: styles }} />
    </head>
    <body>
      <form class="login" method="post" action="/login">
        <h1>claim-hold fleet</h1>
        <p>Log in with the operator token (CLAIM_HOLD_ADMIN_TOKEN).</p>
        {error ? <p class="error">{error}</p> : null}
        <input
          type="password"
          name="token"
          autocomplete="current-password"
          required
          aria-label="Admin token"
        />{" "}
        <button type="submit">Log in</button>
      </form>
    </body>
  </html>
);
