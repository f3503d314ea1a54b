// The GitHub App manifest the setup page posts to GitHub: app.yml plus the URLs only this start knows.
// Fields as in GitHub's "Registering a GitHub App from a manifest" (linked from app.yml).

/** The parts of app.yml the manifest carries over as they are (permissions, events, name, …). */
export type AppYml = Record<string, unknown>;

export interface WebhookTarget {
  /** The URL GitHub delivers webhooks to, or undefined when nothing public reaches this App. */
  url: string | undefined;
  /** Where the URL comes from, for the page and the log. */
  source: "public-url" | "webhook-proxy" | "none";
}

/** Path Probot serves GitHub's webhooks on. */
export const webhookPath = "/api/github/webhooks";
/** Where GitHub sends the browser back with the code to convert into credentials. */
export const callbackPath = "/setup/callback";

/**
 * Where GitHub will deliver webhooks: the App's public URL when set, else a forwarding channel
 * (`WEBHOOK_PROXY_URL`, Probot's convention, e.g. a smee.io channel), else nowhere.
 */
export function webhookTargetOf(env: { publicUrl?: string; webhookProxyUrl?: string }): WebhookTarget {
  if (env.publicUrl)
    return { url: `${env.publicUrl.replace(/\/+$/, "")}${webhookPath}`, source: "public-url" };
  if (env.webhookProxyUrl) return { url: env.webhookProxyUrl, source: "webhook-proxy" };
  return { url: undefined, source: "none" };
}

/**
 * The manifest for GitHub's "register an App" form. `origin` is the setup page's origin as the browser
 * reached it: GitHub sends the browser back there. Without a webhook target the App is registered with
 * its webhook off (GitHub refuses a hook without a URL), and the page says so.
 */
export function setupManifestOf(options: {
  appYml: AppYml;
  target: WebhookTarget;
  origin: string;
  publicUrl?: string;
}): Record<string, unknown> {
  const { hook_attributes: _placeholder, ...fromYml } = options.appYml;
  const homepage = options.publicUrl ?? options.origin;
  return {
    ...fromYml,
    url: homepage,
    hook_attributes: options.target.url
      ? { url: options.target.url, active: true }
      : { url: `${options.origin}${webhookPath}`, active: false },
    redirect_url: `${options.origin}${callbackPath}`,
  };
}
