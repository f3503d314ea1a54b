/** @jsxImportSource hono/jsx */
// What every dashboard page shares: the stylesheet, the live-refresh script, the CSP that allows only those two, the page shell and the login page.
import { createHash } from "node:crypto";
import type { FC } from "hono/jsx";
import type { DerivedState } from "../lease/reads/derive-state.js";
import { timelineStyles } from "./timeline/timeline-panel.js";

/** Colour of each derived state; the state's name is always shown beside it (never colour alone). */
export const stateColours: Record<DerivedState, string> = {
  active: "#1a7f37",
  waiting: "#0969da",
  stalled: "#953800",
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
#action-plan,#action-result{overflow-wrap:anywhere}
.needs-you{background:#fff8c5;border:1px solid #d4a72c;padding:.2rem .6rem;margin:.5rem 0}.needs-you.calm{background:#fff;border-color:#d0d7de}
.needs-you h2{margin:.3rem 0}.needs-you ul{margin:.2rem 0;padding-left:1.1rem}.needs-you li{margin:.15rem 0}
.attention-kind{font-weight:700;color:#9a6700;white-space:nowrap}
#live-toggle[aria-pressed="false"]{background:#fff8c5}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;background:#fff;border:1px solid #d0d7de;padding:.6rem;margin:0}
dl.facts dt{font-weight:600;color:#57606a}dl.facts dd{margin:0}
svg.sparkline{display:block;width:100%;max-width:480px;height:auto;background:#fff;border:1px solid #d0d7de}
svg.sparkline polyline{fill:none;stroke:#0969da;stroke-width:1.5}svg.sparkline line{stroke:#8c959f;stroke-dasharray:4 3}
svg.sparkline circle{fill:#0969da}svg.sparkline circle[data-level="stale"]{fill:#bf8700}svg.sparkline circle[data-level="reclaimable"]{fill:#cf222e}

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
export const refreshScript = `(() => {
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
