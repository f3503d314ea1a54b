// The dashboard read by a person in chromium: what needs them first, relative times with UTC on hover, a pausable refresh, time ranges without JavaScript, and five claims on a phone's first screen.
import { existsSync, mkdirSync } from "node:fs";
import nock from "nock";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenMinter } from "../src/lease/tokens.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import { type AppHarness, startApp, testAdminToken, testTokenSecret } from "./support/app-harness.js";
import { GitHubRequestLog, nockGetAppInstallation } from "./support/github-fake/index.js";
import { minute, seedAgentClaim } from "./support/seed-claims.js";

const chromiumPath = "/usr/bin/chromium";
const available = existsSync(chromiumPath);
if (!available && process.env.CI === "true") {
  throw new Error(`${chromiumPath} is missing: CI must run the dashboard's browser tests.`);
}
const launchArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const screenshotDir = "test-results/screenshots";
const T0 = Date.parse("2026-11-29T10:00:00Z");
const claimCount = 8;

describe.skipIf(!available)("the dashboard, readable", () => {
  let browser: Browser;
  let harness: AppHarness;
  const githubRequests = new GitHubRequestLog();

  beforeAll(async () => {
    const stores = createMemoryStores({ now: () => harness?.clock.now ?? T0 });
    harness = await startApp({ stores, adminToken: testAdminToken, now: T0 });
    // Oldest first: the store's data begins at the first claim, and an older one would read "unknown".
    for (let issue = claimCount; issue >= 1; issue--) {
      const seeded = await seedAgentClaim(stores, {
        key: { installationId: 7, repoId: 1001, issue },
        repo: "acme/widgets",
        actor: { login: "octo-agent", runtime: "codex", sessionId: `s-${issue}`, host: "build-runner-17" },
        title: `Task ${issue}: a long enough title to need more than one line on a phone's narrow screen`,
        now: T0 - issue * minute,
      });
      if (issue === 3) {
        const outcome = await stores.claims.heartbeat({
          key: seeded.key,
          generation: seeded.generation,
          tokenDigest: createTokenMinter(testTokenSecret).digest(seeded.token),
          now: T0 - issue * minute,
          phaseEditEveryMs: minute,
          needsHuman: true,
          blocker: "which database?",
        });
        expect(outcome.kind).toBe("ok");
      }
    }
    // Asked once, then kept: a second request would find no mock and show the id instead.
    nockGetAppInstallation(githubRequests, 7, "acme-org");
    browser = await chromium.launch({ executablePath: chromiumPath, args: launchArgs });
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending).toStrictEqual([]);
  });

  async function logIn(page: import("playwright-core").Page): Promise<void> {
    await page.goto(`${harness.url}/login`);
    await page.fill('input[name="token"]', testAdminToken);
    await Promise.all([page.waitForURL(`${harness.url}/`), page.click('button[type="submit"]')]);
  }

  it("puts what needs a person first, shows times relative with UTC on hover, and pauses the refresh", {
    timeout: 60_000,
  }, async () => {
    harness.clock.now = T0;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    // The page's timers run only when the test says so.
    await page.clock.install({ time: new Date(T0) });
    await page.clock.pauseAt(new Date(T0 + 1_000));
    const fragments: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === "/dashboard/fragment") fragments.push(request.url());
    });
    await logIn(page);

    // The needs-you panel comes before the claims and names the asking holder's subject and question.
    const attention = page.locator("#needs-you li[data-attention]");
    expect(
      await attention.evaluateAll((items) =>
        items.map((li) => `${li.getAttribute("data-attention")} ${li.getAttribute("data-subject")}`),
      ),
    ).toStrictEqual(["needs-human acme/widgets#3"]);
    expect(await attention.first().textContent()).toContain("@octo-agent asks: which database?");
    expect(await attention.first().locator("a").getAttribute("href")).toBe("/subjects/acme/widgets/3");
    const [panelTop, tableTop] = await Promise.all([
      page.locator("#needs-you").boundingBox(),
      page.locator("table.claims").boundingBox(),
    ]);
    expect(panelTop!.y).toBeLessThan(tableTop!.y);

    // Times read relative; hovering shows the UTC time.
    const beat = page.locator('tr[data-subject="acme/widgets#2"] td[data-label="Heartbeat"] time');
    expect(await beat.textContent()).toBe("120 s ago".replace("120 s", "2 min"));
    expect(await beat.getAttribute("title")).toBe("2026-11-29 09:58:00 UTC");
    // The installation reads as its account's login, read from GitHub once for every page after.
    expect(await page.locator("section[data-installation='7'] h2").textContent()).toBe("acme-org");

    // The refresh runs every 2 s while live.
    await page.clock.runFor(2_100);
    await expect.poll(() => fragments.length).toBe(1);
    const toggle = page.locator("#live-toggle");
    expect(await toggle.isVisible()).toBe(true);
    expect(await toggle.getAttribute("aria-pressed")).toBe("true");
    await toggle.click();
    expect(await toggle.getAttribute("aria-pressed")).toBe("false");
    // Paused: the server's clock moves #1 to stale, the page's timers run a minute, and nothing is fetched.
    harness.clock.now = T0 + 31 * minute;
    await page.clock.runFor(60_000);
    expect(fragments).toHaveLength(1);
    expect(await page.locator('tr[data-subject="acme/widgets#1"]').getAttribute("data-state")).toBe("active");
    // Resumed: one refresh right away shows the change.
    await toggle.click();
    await page.waitForSelector('tr[data-subject="acme/widgets#1"][data-state="stale"]');
    expect(fragments).toHaveLength(2);
    expect(await page.locator("section[data-installation='7'] h2").textContent()).toBe("acme-org");
    expect(githubRequests.entries.map((e) => `${e.method} ${e.path}`)).toStrictEqual([
      "GET /app/installations/7",
    ]);
    await context.close();
  });

  it("changes the timeline's range without JavaScript, and lanes name subject and holder", {
    timeout: 60_000,
  }, async () => {
    harness.clock.now = T0;
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      javaScriptEnabled: false,
    });
    const page = await context.newPage();
    await logIn(page);
    expect(await page.locator("#live-toggle").isVisible()).toBe(false);
    expect(await page.locator("#timeline h2").textContent()).toContain("Last 24 hours");
    expect(await page.locator('.ranges a[aria-current="true"]').textContent()).toBe("24 h");
    await Promise.all([page.waitForURL(/range=1h/), page.click('.ranges a[data-range="1h"]')]);
    expect(await page.locator("#timeline h2").textContent()).toContain("Last hour");
    expect(await page.locator('.ranges a[aria-current="true"]').getAttribute("data-range")).toBe("1h");
    // #8 was claimed 8 minutes ago: in the last hour, its lane named by subject and holder.
    expect(
      await page.locator('svg.timeline g[data-lane="agent:octo-agent:codex:s-8"] > text').textContent(),
    ).toBe("acme/widgets#8 — @octo-agent · codex · session s-8 · host build-runner-17");
    // The filter form keeps the range.
    await page.selectOption('select[name="state"]', "active");
    await Promise.all([page.waitForURL(/state=active/), page.click("noscript button, form.filters button")]);
    expect(new URL(page.url()).searchParams.get("range")).toBe("1h");
    await context.close();
  });

  it("fits at least five claims on a phone's first screen", { timeout: 60_000 }, async () => {
    harness.clock.now = T0;
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await logIn(page);
    await page.waitForSelector("tr.claim");
    mkdirSync(screenshotDir, { recursive: true });
    await page.screenshot({ path: `${screenshotDir}/dashboard-readable-phone.png` });
    const visible = await page.locator("table.claims tr.claim").evaluateAll((rows) =>
      rows.filter((row) => {
        const box = row.getBoundingClientRect();
        return (
          box.top >= 0 && box.bottom <= window.innerHeight && box.left >= 0 && box.right <= window.innerWidth
        );
      }),
    );
    expect(visible.length).toBeGreaterThanOrEqual(5);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: `${screenshotDir}/dashboard-readable-desktop.png`, fullPage: true });
    await context.close();
  });
});
