// The setup flow end to end: claim-hold started with no credentials registers itself on the GitHub
// simulator from its manifest, writes the credentials to `.env`, and once restarted receives webhooks
// at the URL the manifest gave GitHub.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { startGitHubSimulator } from "../tools/github-sim/index.js";
import { freePort } from "../tools/local-stack/free-port.js";
import { testAppPrivateKey, testWebhookSecret } from "./support/app-harness.js";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const tsxLoader = new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

interface MainProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process logged so far. */
  output(): string;
  /** SIGTERM, resolves once it exited. */
  stop(): Promise<void>;
}

/** Starts `src/main.ts` in `cwd` (where it reads and writes `.env`); resolves once `/healthz` answers. */
async function startMain(cwd: string, port: number, env: Record<string, string>): Promise<MainProcess> {
  const child = spawn(process.execPath, ["--import", tsxLoader, join(repoRoot, "src/main.ts")], {
    cwd,
    env: { PATH: process.env.PATH, NODE_ENV: "test", HOST: "127.0.0.1", PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  cleanup.push(stop);
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`main exited ${child.exitCode}: ${output}`);
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { child, url, output: () => output, stop };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function until<T>(read: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("setup flow", () => {
  it("registers the App from its manifest and the registered App receives the simulator's webhook", async () => {
    const sim = await startGitHubSimulator();
    cleanup.push(() => sim.close());
    sim.addRepo({ fullName: "octo/widgets" });
    const workDir = mkdtempSync(join(tmpdir(), "claim-hold-setup-"));
    cleanup.push(() => rmSync(workDir, { recursive: true, force: true }));
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const simUrl = new URL(sim.url);
    const env = {
      GHE_HOST: simUrl.host,
      GHE_PROTOCOL: "http",
      CLAIM_HOLD_PUBLIC_URL: publicUrl,
      CLAIM_HOLD_DISABLE_JOBS: "janitor",
      LOG_LEVEL: "debug",
    };

    // Setup mode: alive, not ready, and the page is claim-hold's own.
    const setup = await startMain(workDir, port, env);
    const ready = await fetch(`${setup.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "not_ready", checks: { credentials: "missing" } });
    const page = await (await fetch(`${setup.url}/`)).text();
    expect(page).toContain("Set up claim-hold");
    expect(page).toContain('href="/setup/docs/deploy.md"');
    expect(page).not.toMatch(/probot\.github\.io|example\.invalid/);
    const action = /<form action="([^"]+)"/.exec(page)?.[1];
    const manifestText = /name="manifest" value="([^"]+)"/.exec(page)?.[1]?.replace(/&#34;/g, '"');
    expect(action).toMatch(new RegExp(`^${sim.url}/settings/apps/new\\?state=[0-9a-f]{32}$`));
    const manifest = JSON.parse(manifestText ?? "{}");
    expect(manifest.hook_attributes).toEqual({ url: `${publicUrl}/api/github/webhooks`, active: true });
    expect(manifest.redirect_url).toBe(`${publicUrl}/setup/callback`);
    expect((await fetch(`${setup.url}/setup/docs/deploy.md`)).status).toBe(200);

    // The browser posts the manifest to GitHub, which sends it back with a code; the App converts it.
    const confirmed = await fetch(action ?? "", {
      method: "POST",
      body: new URLSearchParams({ manifest: JSON.stringify(manifest) }),
      redirect: "manual",
    });
    expect(confirmed.status).toBe(302);
    const callback = new URL(confirmed.headers.get("location") ?? "");
    expect(callback.origin + callback.pathname).toBe(`${publicUrl}/setup/callback`);
    // A callback that did not start on this page (no state, or another) converts nothing.
    const forged = new URL(callback);
    forged.searchParams.delete("state");
    expect((await fetch(forged, { redirect: "manual" })).status).toBe(400);
    forged.searchParams.set("state", "0".repeat(32));
    expect((await fetch(forged, { redirect: "manual" })).status).toBe(400);
    const converted = await fetch(callback, { redirect: "manual" });
    expect(converted.status).toBe(302);
    expect(converted.headers.get("location")).toMatch(/\/apps\/claim-hold\/installations\/new$/);

    const envFile = join(workDir, ".env");
    const written = parseEnv(readFileSync(envFile, "utf8"));
    expect(written.APP_ID).toMatch(/^\d+$/);
    expect(written.PRIVATE_KEY).toMatch(
      /^-----BEGIN RSA PRIVATE KEY-----\n[\s\S]+\n-----END RSA PRIVATE KEY-----\n?$/,
    );
    expect(written.WEBHOOK_SECRET).toMatch(/^[0-9a-f]{40}$/);
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    await setup.stop();
    // Requests logged one line each at most, never their headers or the one-time code.
    expect(setup.output()).not.toMatch(/user-agent|x-forwarded|accept-encoding/i);
    expect(setup.output()).not.toContain(callback.searchParams.get("code"));
    expect(setup.output()).not.toContain(written.WEBHOOK_SECRET);

    // Restarted in the same directory, it reads `.env` and is a working App: installing it delivers a
    // signed webhook to the manifest's URL, the App accepts it and creates its labels.
    const running = await startMain(workDir, port, { ...env, LOG_LEVEL: "warn" });
    const readyNow = await fetch(`${running.url}/readyz`);
    expect(await readyNow.json()).toMatchObject({ checks: { credentials: "ok" } });
    sim.install({ repos: ["octo/widgets"] });
    const delivery = await until(() => {
      const [first] = sim.deliveries({ event: "installation" });
      return first && first.status !== "queued" && first.status !== "in-flight" ? first : undefined;
    });
    expect(delivery).toMatchObject({ status: "delivered", responseStatus: 200 });
    expect(sim.webhooks.url).toBe(`${publicUrl}/api/github/webhooks`);
    await until(() => (sim.labels("octo/widgets").includes("agent:claimed") ? true : undefined));
  });
});

/**
 * A webhook forwarding channel as smee.io runs one: GitHub POSTs a delivery to the channel's URL, and
 * every client reading the same URL as an event stream gets it as one event (headers and body as JSON).
 */
async function startForwardingChannel() {
  const readers = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(": ready\n\n");
      readers.add(res);
      req.once("close", () => readers.delete(res));
      return;
    }
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => /^x-(github|hub)-/.test(name)),
      );
      const event = JSON.stringify({ ...headers, body: JSON.parse(body), query: {} });
      for (const reader of readers) reader.write(`data: ${event}\n\n`);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/channel-7f3a`;
  return {
    url,
    readers: () => readers.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("WEBHOOK_PROXY_URL", () => {
  it("relays the forwarding channel's deliveries to the App's webhook route", async () => {
    const channel = await startForwardingChannel();
    cleanup.push(() => channel.close());
    const sim = await startGitHubSimulator({
      webhookUrl: channel.url,
      webhookSecret: testWebhookSecret,
      appKey: testAppPrivateKey(),
    });
    cleanup.push(() => sim.close());
    sim.addRepo({ fullName: "octo/widgets" });
    const workDir = mkdtempSync(join(tmpdir(), "claim-hold-proxy-"));
    cleanup.push(() => rmSync(workDir, { recursive: true, force: true }));
    await startMain(workDir, await freePort(), {
      APP_ID: "1",
      PRIVATE_KEY: testAppPrivateKey(),
      WEBHOOK_SECRET: testWebhookSecret,
      WEBHOOK_PROXY_URL: channel.url,
      GHE_HOST: new URL(sim.url).host,
      GHE_PROTOCOL: "http",
      CLAIM_HOLD_DISABLE_JOBS: "janitor",
      LOG_LEVEL: "warn",
    });
    await until(() => (channel.readers() > 0 ? true : undefined));
    sim.install({ repos: ["octo/widgets"] });
    // The channel answered GitHub; only the relay can have brought the event to the App.
    await until(() => (sim.labels("octo/widgets").includes("agent:claimed") ? true : undefined));
    expect(sim.deliveries({ event: "installation" })).toMatchObject([
      { status: "delivered", responseStatus: 200 },
    ]);
  });
});
