// The page served while the App has no credentials: what claim-hold is, what registering it creates, and
// the button that posts the manifest to GitHub. Plain HTML, no script, no assets to fetch.
import type { WebhookTarget } from "./setup-manifest.js";

/** HTML-escapes text and attribute values (the manifest goes into an attribute). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The warning shown on the page and logged when GitHub will have nowhere to deliver webhooks. */
export const noWebhookWarning =
  "The App will receive no webhooks: neither CLAIM_HOLD_PUBLIC_URL nor WEBHOOK_PROXY_URL is set, so GitHub " +
  "has no address to deliver to and the App is registered with its webhook off. Without webhooks claims " +
  "still work, but nothing reacts to GitHub (labels on install, /reclaim, the claim-hold check, closed " +
  "issues). Set one of them and restart before registering, or later set the webhook URL and tick " +
  "Active on the App's settings page on GitHub.";

function webhookLine(target: WebhookTarget): string {
  if (target.source === "public-url") {
    return `GitHub will deliver webhooks to <code>${escapeHtml(target.url ?? "")}</code> (from <code>CLAIM_HOLD_PUBLIC_URL</code>).`;
  }
  if (target.source === "webhook-proxy") {
    return `GitHub will deliver webhooks to the forwarding channel <code>${escapeHtml(target.url ?? "")}</code> (from <code>WEBHOOK_PROXY_URL</code>); the App forwards them to itself once it runs with its credentials.`;
  }
  return `<strong>Warning:</strong> ${escapeHtml(noWebhookWarning)}`;
}

export function renderSetupPage(options: {
  manifest: Record<string, unknown>;
  /** GitHub's "new App" form: `https://github.com/settings/apps/new` or the GHE host's. */
  createAppUrl: string;
  target: WebhookTarget;
  envFile: string;
}): string {
  const { manifest, target } = options;
  const permissions = Object.entries((manifest.default_permissions ?? {}) as Record<string, string>)
    .map(([name, access]) => `<li><code>${escapeHtml(name)}</code>: ${escapeHtml(access)}</li>`)
    .join("");
  const events = ((manifest.default_events ?? []) as string[])
    .map((e) => `<code>${escapeHtml(e)}</code>`)
    .join(", ");
  const warn = target.source === "none";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>claim-hold setup</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; }
code { background: #f6f8fa; padding: 0 .2em; border-radius: 4px; }
.webhook { padding: .75rem 1rem; border-radius: 6px; background: #ddf4ff; }
.webhook.warning { background: #fff1e5; border: 2px solid #bc4c00; }
button { font-size: 1rem; padding: .5rem 1rem; cursor: pointer; }
</style>
</head>
<body>
<h1>Set up claim-hold</h1>
<p>claim-hold is a GitHub App that lets agent sessions and people share one issue queue: an agent claims
an issue through the App's HTTP API and holds it with heartbeats; a silent holder's claim can be taken
over, and a required <code>claim-hold</code> check keeps a superseded holder's pull request out of the merge.</p>
<p>This process has no GitHub App credentials yet, so it serves only this page, <code>/healthz</code> and
<code>/readyz</code> (503, <code>credentials: missing</code>).</p>
<h2>What will be registered</h2>
<p>A ${manifest.public ? "public" : "private"} GitHub App named <code>${escapeHtml(String(manifest.name ?? "claim-hold"))}</code> on your account
(you can rename it on GitHub's next page), from <code>app.yml</code>, with these permissions:</p>
<ul>${permissions}</ul>
<p>and these events: ${events}.</p>
<p class="webhook${warn ? " warning" : ""}" role="${warn ? "alert" : "status"}">${webhookLine(target)}</p>
<form action="${escapeHtml(options.createAppUrl)}" method="post">
<input type="hidden" name="manifest" value="${escapeHtml(JSON.stringify(manifest))}">
<button type="submit">Register the App on GitHub</button>
</form>
<p>GitHub then sends you back here; the App's id, private key and webhook secret are written to
<code>${escapeHtml(options.envFile)}</code>, and you go on to install the App on your repositories.
Restart claim-hold afterwards.</p>
<h2>More</h2>
<ul>
<li><a href="/setup/docs/README.md">README.md</a>: what claim-hold does, the agent CLI and the environment variables</li>
<li><a href="/setup/docs/deploy.md">docs/deploy.md</a>: registering the App by hand, running it, Redis, health checks</li>
</ul>
</body>
</html>
`;
}

/** The answer when GitHub registered the App but `.env` could not be written (a read-only directory). */
export function renderUnsavedPage(options: {
  appId: number;
  settings: string;
  envFile: string;
  reason: string;
}): string {
  const settings = escapeHtml(options.settings);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>claim-hold: credentials not saved</title></head>
<body>
<h1>The App is registered, but its credentials were not saved</h1>
<p><code>${escapeHtml(options.envFile)}</code> could not be written (${escapeHtml(options.reason)}), and GitHub
shows a private key only once. On the <a href="${settings}">App's settings page</a>, generate a private key
and set a webhook secret; then give claim-hold <code>APP_ID=${options.appId}</code>, <code>PRIVATE_KEY</code> (or
<code>PRIVATE_KEY_PATH</code>) and <code>WEBHOOK_SECRET</code> in its environment and restart it.</p>
</body></html>
`;
}
