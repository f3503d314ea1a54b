// The fleet dashboard over HTTP: admin login and signed cookie, states from the store, filters, and escaping.
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import { type AppHarness, startApp, testAdminToken } from "./support/app-harness.js";
import { minute, seedAgentClaim, seedHumanClaim } from "./support/seed-claims.js";
// Off the network: the page's one installation-account read meets nock, finds no mock, and the page names the installation by id.
import "./support/github-fake/index.js";

const T0 = Date.parse("2026-11-29T10:00:00Z");
const hostile = {
  title: `<img src=x onerror="alert('title')">`,
  sessionId: `"><script>alert('session')</script>`,
  host: `<svg onload=alert('host')>`,
};

let harness: AppHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function login(url: string, token = testAdminToken): Promise<Response> {
  return fetch(`${url}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token }).toString(),
    redirect: "manual",
  });
}

async function seededApp() {
  const stores = createMemoryStores({ now: () => T0 });
  harness = await startApp({ stores, adminToken: testAdminToken, now: T0 });
  const widgets = { installationId: 7, repoId: 1001 };
  await seedAgentClaim(stores, {
    key: { ...widgets, issue: 2 },
    repo: "acme/widgets",
    actor: { login: "octo-agent", runtime: "codex", sessionId: "s-stale", host: "build-2" },
    now: T0 - 40 * minute,
  });
  await seedAgentClaim(stores, {
    key: { ...widgets, issue: 1 },
    repo: "acme/widgets",
    actor: { login: "octo-agent", runtime: "claude-code", ...hostile },
    title: hostile.title,
    now: T0 - 5 * minute,
  });
  await seedHumanClaim(stores, {
    key: { installationId: 7, repoId: 2002, issue: 3 },
    repo: "acme/gadgets",
    login: "maintainer",
    now: T0 - minute,
  });
  return harness;
}

describe("fleet dashboard", () => {
  it("answers 404 on every dashboard route when no admin token is configured", async () => {
    harness = await startApp({ stores: createMemoryStores() });
    for (const path of ["/", "/login", "/dashboard/fragment", "/dashboard/fleet.json"]) {
      expect((await fetch(`${harness.url}${path}`, { redirect: "manual" })).status, path).toBe(404);
    }
    expect((await login(harness.url)).status).toBe(404);
  });

  it("sends a visitor without a session to the login form, and refuses a wrong token", async () => {
    const { url } = await seededApp();
    const home = await fetch(`${url}/`, { redirect: "manual" });
    expect(home.status).toBe(303);
    expect(home.headers.get("location")).toBe("/login");
    const form = await fetch(`${url}/login`);
    expect(await form.text()).toContain('name="token"');
    const refused = await login(url, "not-the-token");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("set-cookie")).toBeNull();
    expect((await fetch(`${url}/dashboard/fragment`)).status).toBe(401);
  });

  it("logs in with an HttpOnly, SameSite=Strict signed cookie and rejects a forged one", async () => {
    const { url } = await seededApp();
    const response = await login(url);
    expect(response.status).toBe(303);
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^claim_hold_session=\d+\.[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).not.toContain(testAdminToken);
    const session = cookie.split(";")[0]!;
    const page = await fetch(`${url}/`, { headers: { cookie: session } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'sha256-");
    const [name, value] = session.split("=") as [string, string];
    const [expiry, signature] = value.split(".") as [string, string];
    const forged = `${name}=${Number(expiry) + 1_000_000}.${signature}`;
    expect((await fetch(`${url}/`, { headers: { cookie: forged }, redirect: "manual" })).status).toBe(303);
  });

  it("shows every claim with its derived state, holder, heartbeat age and the janitor's report", async () => {
    const { url } = await seededApp();
    const session = (await login(url)).headers.get("set-cookie")!.split(";")[0]!;
    const fleet = (await (
      await fetch(`${url}/dashboard/fleet.json`, { headers: { cookie: session } })
    ).json()) as {
      claims: { subject: string; state: string; lastHeartbeatAgoSeconds: number }[];
      repos: string[];
    };
    expect(fleet.claims.map((c) => [c.subject, c.state])).toStrictEqual([
      ["acme/gadgets#3", "human"],
      ["acme/widgets#1", "active"],
      ["acme/widgets#2", "stale"],
    ]);
    expect(fleet.repos).toStrictEqual(["acme/gadgets", "acme/widgets"]);
    const html = await (await fetch(`${url}/`, { headers: { cookie: session } })).text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('data-subject="acme/widgets#2" data-state="stale"');
    expect(html).toContain("2400 s ago".replace("2400 s", "40 min"));
    expect(html).toContain("@maintainer");
    expect(html).toContain("The janitor has not reported yet.");
    // GitHub did not name the account: the installation reads by id, and the page still renders.
    expect(html).toContain('<h2 title="installation 7">installation 7</h2>');
  });

  it("filters by repository and state", async () => {
    const { url } = await seededApp();
    const session = (await login(url)).headers.get("set-cookie")!.split(";")[0]!;
    const fragment = async (query: string) =>
      (await fetch(`${url}/dashboard/fragment?${query}`, { headers: { cookie: session } })).text();
    const subjectsIn = (html: string) => [...html.matchAll(/data-subject="([^"]+)"/g)].map((m) => m[1]);
    expect(subjectsIn(await fragment("repo=acme%2Fwidgets"))).toStrictEqual([
      "acme/widgets#1",
      "acme/widgets#2",
    ]);
    expect(subjectsIn(await fragment("state=stale"))).toStrictEqual(["acme/widgets#2"]);
    expect(subjectsIn(await fragment("repo=acme%2Fgadgets&state=stale"))).toStrictEqual([]);
    // An unknown filter value is ignored, never echoed.
    const unknown = await fragment("state=%3Cscript%3E");
    expect(subjectsIn(unknown)).toHaveLength(3);
    expect(unknown).not.toContain("<script>");
  });

  it("escapes HTML in issue titles, session ids and hostnames", async () => {
    const { url } = await seededApp();
    const session = (await login(url)).headers.get("set-cookie")!.split(";")[0]!;
    for (const path of ["/", "/dashboard/fragment"]) {
      const html = await (await fetch(`${url}${path}`, { headers: { cookie: session } })).text();
      for (const text of Object.values(hostile)) expect(html, path).not.toContain(text);
      expect(html).toContain("&lt;img src=x onerror=");
      expect(html).toContain("&lt;script&gt;alert(");
      expect(html).toContain("&lt;svg onload=alert(");
      // The page's own script is the only one.
      expect(html.match(/<script/g)?.length ?? 0).toBe(path === "/" ? 1 : 0);
    }
  });
});
