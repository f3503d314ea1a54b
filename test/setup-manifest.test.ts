// Setup mode's parts: where webhooks go, the manifest it posts, the `.env` it writes, and what the page
// and the log say when GitHub would have nowhere to deliver.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { envLine, mergeEnvFile } from "../src/setup/merge-env-file.js";
import { setupManifestOf, webhookTargetOf } from "../src/setup/setup-manifest.js";
import { startSetupServer } from "../src/setup/start-setup-server.js";
import { httpServerLimits } from "../src/start-app-server.js";
import { startGitHubSimulator } from "../tools/github-sim/index.js";

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe("webhookTargetOf", () => {
  it.each([
    [
      { publicUrl: "https://claims.example.com" },
      "https://claims.example.com/api/github/webhooks",
      "public-url",
    ],
    [
      { publicUrl: "https://claims.example.com/" },
      "https://claims.example.com/api/github/webhooks",
      "public-url",
    ],
    [
      { publicUrl: "https://claims.example.com", webhookProxyUrl: "https://smee.io/abc" },
      "https://claims.example.com/api/github/webhooks",
      "public-url",
    ],
    [{ webhookProxyUrl: "https://smee.io/abc" }, "https://smee.io/abc", "webhook-proxy"],
    [{}, undefined, "none"],
  ])("%o → %s (%s)", (env, url, source) => {
    expect(webhookTargetOf(env)).toEqual({ url, source });
  });
});

describe("setupManifestOf", () => {
  const appYml = {
    name: "claim-hold",
    public: false,
    hook_attributes: { url: "https://placeholder.test/hook" },
    default_permissions: { issues: "write" },
    default_events: ["issues"],
  };

  it("keeps app.yml's permissions and events and sends GitHub back to the page it came from", () => {
    const manifest = setupManifestOf({
      appYml,
      target: webhookTargetOf({ publicUrl: "https://claims.example.com" }),
      origin: "http://localhost:3000",
      publicUrl: "https://claims.example.com",
    });
    expect(manifest).toEqual({
      name: "claim-hold",
      public: false,
      default_permissions: { issues: "write" },
      default_events: ["issues"],
      url: "https://claims.example.com",
      hook_attributes: { url: "https://claims.example.com/api/github/webhooks", active: true },
      redirect_url: "http://localhost:3000/setup/callback",
    });
  });

  it("registers the webhook off when nothing public reaches the App", () => {
    const manifest = setupManifestOf({
      appYml,
      target: webhookTargetOf({}),
      origin: "http://localhost:3000",
    });
    expect(manifest.hook_attributes).toEqual({
      url: "http://localhost:3000/api/github/webhooks",
      active: false,
    });
    expect(manifest.url).toBe("http://localhost:3000");
  });
});

describe(".env", () => {
  const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\nabc+/=\n-----END RSA PRIVATE KEY-----\n";
  it.each([
    ["a number", "12345"],
    ["a hex secret", "0f3a9c"],
    ["a PEM", pem],
    ["a value with a space and #", "a b # c"],
    ["a value with a double quote", 'say "hi"'],
    ["a value with a single quote", "it's"],
  ])("%s is read back as written", (_, value) => {
    expect(parseEnv(envLine("KEY", value)).KEY).toBe(value);
  });

  it("merges into the file, keeping the keys already there", () => {
    const dir = mkdtempSync(join(tmpdir(), "claim-hold-env-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, ".env");
    writeFileSync(path, "LOG_LEVEL=debug\nAPP_ID=1\n");
    mergeEnvFile(path, { APP_ID: "77", PRIVATE_KEY: pem });
    expect(parseEnv(readFileSync(path, "utf8"))).toEqual({
      LOG_LEVEL: "debug",
      APP_ID: "77",
      PRIVATE_KEY: pem,
    });
  });

  it("replaces a readable .env with an owner-only one, never writing the key into the readable file", () => {
    const dir = mkdtempSync(join(tmpdir(), "claim-hold-env-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, ".env");
    writeFileSync(path, "LOG_LEVEL=debug\n", { mode: 0o644 });
    const before = statSync(path).ino;
    mergeEnvFile(path, { PRIVATE_KEY: pem });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // A new file took the old one's place: the old (readable) inode never held the key.
    expect(statSync(path).ino).not.toBe(before);
    expect(readdirSync(dir)).toEqual([".env"]);
  });
});

/** GET `path` with the Host header set by hand (fetch does not let a page choose it; a rebinding page's is its own name). */
function getWithHost(url: string, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

/** The setup server in this process on a free port; its log lines collected. */
async function setupServer(env: {
  publicUrl?: string;
  webhookProxyUrl?: string;
  githubUrl?: string;
  envFileIn?: string;
  org?: string;
}) {
  const lines: string[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void lines.push(line) });
  const dir = mkdtempSync(join(tmpdir(), "claim-hold-setup-"));
  const github = env.githubUrl ?? "https://github.test";
  const server: Server = await startSetupServer({
    host: "127.0.0.1",
    port: 0,
    ...(env.publicUrl ? { publicUrl: env.publicUrl } : {}),
    ...(env.webhookProxyUrl ? { webhookProxyUrl: env.webhookProxyUrl } : {}),
    ...(env.org ? { org: env.org } : {}),
    githubWebUrl: github,
    githubApiUrl: `${github}/api/v3`,
    envFile: join(env.envFileIn ? join(dir, env.envFileIn) : dir, ".env"),
    limits: httpServerLimits(4_000, 50),
    log,
  });
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, lines, dir, server };
}

describe("setup server", () => {
  it("without CLAIM_HOLD_PUBLIC_URL or WEBHOOK_PROXY_URL warns on the page and in the log", async () => {
    const { url, lines } = await setupServer({});
    const page = await (await fetch(url)).text();
    expect(page).toMatch(
      /<p class="webhook warning" role="alert"><strong>Warning:<\/strong> The App will receive no webhooks/,
    );
    expect(page).toContain("&#34;active&#34;:false");
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
    expect(warnings.map((l) => l.msg)).toEqual([expect.stringMatching(/^The App will receive no webhooks/)]);
  });

  it("with WEBHOOK_PROXY_URL the manifest's webhook is the forwarding channel", async () => {
    const { url, lines } = await setupServer({ webhookProxyUrl: "https://smee.io/channel123" });
    const page = await (await fetch(url)).text();
    expect(page).toContain(
      "&#34;hook_attributes&#34;:{&#34;url&#34;:&#34;https://smee.io/channel123&#34;,&#34;active&#34;:true}",
    );
    expect(page).not.toContain("Warning:");
    expect(lines.join("")).not.toContain("channel123");
  });

  it("answers the page and the callback only to loopback and the public URL's host (no DNS rebinding)", async () => {
    const { url } = await setupServer({ publicUrl: "https://claims.example.com" });
    const answers = await Promise.all(
      [
        ["/", "localhost:3000"],
        ["/", "127.0.0.1"],
        ["/", "[::1]:3000"],
        ["/", "claims.example.com"],
        ["/", "evil.example:3000"],
        ["/setup/callback?code=x&state=y", "evil.example"],
        ["/healthz", "10.1.2.3:3000"],
      ].map(async ([path, host]) => [path, host, await getWithHost(url, path ?? "/", host ?? "")]),
    );
    expect(answers).toEqual([
      ["/", "localhost:3000", 200],
      ["/", "127.0.0.1", 200],
      ["/", "[::1]:3000", 200],
      ["/", "claims.example.com", 200],
      ["/", "evil.example:3000", 421],
      ["/setup/callback?code=x&state=y", "evil.example", 421],
      // A probe reaches the pod by its address: health answers whatever the Host.
      ["/healthz", "10.1.2.3:3000", 200],
    ]);
  });

  it("with GH_ORG registers the App under the organisation", async () => {
    const { url } = await setupServer({ org: "octo-org" });
    const page = await (await fetch(url)).text();
    expect(/<form action="([^"]+)"/.exec(page)?.[1]).toMatch(
      /^https:\/\/github\.test\/organizations\/octo-org\/settings\/apps\/new\?state=[0-9a-f]{32}$/,
    );
  });

  it("keeps the App server's slow-client limits", async () => {
    const { server } = await setupServer({});
    expect([server.requestTimeout, server.headersTimeout, server.maxConnections]).toEqual([4_000, 2_666, 50]);
  });

  it("logs one line per request, without headers", async () => {
    const { url, lines } = await setupServer({ publicUrl: "https://claims.example.com" });
    const before = lines.length;
    await fetch(`${url}/`, { headers: { "user-agent": "browser-under-test" } });
    await fetch(`${url}/favicon.ico`);
    await fetch(`${url}/healthz`);
    const logged = lines.slice(before).map((l) => JSON.parse(l));
    expect(logged.map((l) => l.msg)).toEqual(["GET / 200", "GET /favicon.ico 404", "GET /healthz 200"]);
    expect(logged.every((l) => l.level === 20 && l.req === undefined)).toBe(true);
    expect(lines.join("")).not.toContain("browser-under-test");
  });

  it("a code GitHub does not know answers 502, logs no code and writes no .env", async () => {
    const sim = await startGitHubSimulator();
    cleanup.push(() => sim.close());
    const { url, lines, dir } = await setupServer({ githubUrl: sim.url });
    const page = await (await fetch(url)).text();
    const state = /state=([0-9a-f]+)/.exec(page)?.[1];
    const answer = await fetch(`${url}/setup/callback?code=not-a-code-0123&state=${state}`);
    expect(answer.status).toBe(502);
    expect(lines.join("")).toContain("did not turn the manifest code into credentials (HTTP 404)");
    expect(lines.join("")).not.toContain("not-a-code-0123");
    expect(() => readFileSync(join(dir, ".env"))).toThrow();
  });

  it("when .env cannot be written, says how to finish by hand and logs no secret", async () => {
    const sim = await startGitHubSimulator();
    cleanup.push(() => sim.close());
    const { url, lines } = await setupServer({ githubUrl: sim.url, envFileIn: "no-such-directory" });
    const page = await (await fetch(url)).text();
    const action = (/<form action="([^"]+)"/.exec(page)?.[1] ?? "").replace(/&#38;/g, "&");
    const manifest = (/name="manifest" value="([^"]+)"/.exec(page)?.[1] ?? "").replace(/&#34;/g, '"');
    const confirmed = await fetch(action, {
      method: "POST",
      body: new URLSearchParams({ manifest }),
      redirect: "manual",
    });
    const answer = await fetch(confirmed.headers.get("location") ?? "", { redirect: "manual" });
    expect(answer.status).toBe(500);
    const text = await answer.text();
    expect(text).toContain("could not be written (ENOENT)");
    expect(text).toContain(`href="${sim.url}/settings/apps/claim-hold"`);
    expect(text).not.toContain("PRIVATE KEY-----");
    const logged = lines.join("");
    expect(logged).toContain("could not write");
    expect(logged).not.toMatch(/PRIVATE KEY-----|webhook_secret/);
  });
});
