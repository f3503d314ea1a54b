// The dashboard in a real browser (Debian's chromium through playwright-core): log in, read, filter, watch a claim go stale.
import { existsSync, mkdirSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import { type AppHarness, startApp, testAdminToken } from "./support/app-harness.js";
import { minute, seedAgentClaim, seedHumanClaim } from "./support/seed-claims.js";
// Off the network: the page's one installation-account read meets nock, finds no mock, and the page names the installation by id.
import "./support/github-fake/index.js";

const chromiumPath = "/usr/bin/chromium";
const available = existsSync(chromiumPath);
if (!available && process.env.CI === "true") {
  throw new Error(
    `${chromiumPath} is missing: CI must run the dashboard's browser test (apt-get install chromium).`,
  );
}
if (!available) console.warn(`Skipping the dashboard browser test: ${chromiumPath} is not installed.`);

/** Flags from the machine guide: no sandbox as root, and no background networking on a closed network. */
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

const T0 = Date.parse("2026-11-29T10:00:00Z");

describe.skipIf(!available)("fleet dashboard in chromium", () => {
  let browser: Browser;
  let harness: AppHarness;

  beforeAll(async () => {
    const stores = createMemoryStores({ now: () => harness?.clock.now ?? T0 });
    harness = await startApp({ stores, adminToken: testAdminToken, now: T0 });
    await seedAgentClaim(stores, {
      key: { installationId: 7, repoId: 1001, issue: 2 },
      repo: "acme/widgets",
      actor: { login: "octo-agent", runtime: "codex", sessionId: "s-quiet", host: "build-2" },
      title: "Flaky parser test",
      now: T0 - 40 * minute,
    });
    await seedAgentClaim(stores, {
      key: { installationId: 7, repoId: 1001, issue: 1 },
      repo: "acme/widgets",
      actor: {
        login: "octo-agent",
        runtime: "claude-code",
        sessionId: `"><img src=x onerror="alert('session')">`,
        host: "<script>alert('host')</script>",
      },
      title: `<img src=x onerror="alert('title')"> Fix the parser`,
      now: T0 - minute,
    });
    await seedHumanClaim(stores, {
      key: { installationId: 7, repoId: 2002, issue: 3 },
      repo: "acme/gadgets",
      login: "maintainer",
      now: T0 - minute,
    });
    browser = await chromium.launch({ executablePath: chromiumPath, args: launchArgs });
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  it("logs in, shows states, filters, and picks up a claim going stale without a reload", {
    timeout: 60_000,
  }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on("dialog", async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });

    await page.goto(`${harness.url}/`);
    expect(new URL(page.url()).pathname).toBe("/login");
    await page.fill('input[name="token"]', testAdminToken);
    await Promise.all([page.waitForURL(`${harness.url}/`), page.click('button[type="submit"]')]);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === "claim_hold_session")).toMatchObject({
      httpOnly: true,
      sameSite: "Strict",
    });

    const row = (subject: string) => page.locator(`tr[data-subject="${subject}"]`);
    await expect.poll(() => row("acme/widgets#1").getAttribute("data-state")).toBe("active");
    expect(await row("acme/widgets#1").locator(".badge").textContent()).toBe("active");
    expect(await row("acme/widgets#2").getAttribute("data-state")).toBe("stale");
    expect(await row("acme/gadgets#3").getAttribute("data-state")).toBe("human");
    // Hostile text shows as text; no script of it ran.
    const text = await row("acme/widgets#1").textContent();
    expect(text).toContain(`<img src=x onerror="alert('title')"> Fix the parser`);
    expect(text).toContain("<script>alert('host')</script>");
    expect(dialogs).toStrictEqual([]);

    // Filter by state, then by repository.
    await Promise.all([page.waitForURL(/state=stale/), page.selectOption('select[name="state"]', "stale")]);
    expect(
      await page.locator("tr[data-subject]").evaluateAll((rows) => rows.map((r) => r.dataset.subject)),
    ).toStrictEqual(["acme/widgets#2"]);
    await Promise.all([
      page.waitForURL((url) => url.searchParams.get("state") === ""),
      page.selectOption('select[name="state"]', ""),
    ]);
    await Promise.all([
      page.waitForURL(/repo=acme%2Fgadgets/),
      page.selectOption('select[name="repo"]', "acme/gadgets"),
    ]);
    expect(
      await page.locator("tr[data-subject]").evaluateAll((rows) => rows.map((r) => r.dataset.subject)),
    ).toStrictEqual(["acme/gadgets#3"]);
    await Promise.all([
      page.waitForURL((url) => url.searchParams.get("repo") === ""),
      page.selectOption('select[name="repo"]', ""),
    ]);
    await expect.poll(() => page.locator("tr[data-subject]").count()).toBe(3);

    // The heartbeats of #1 stop: 31 minutes later it is stale, and the page shows it by itself.
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    harness.clock.now = T0 + 31 * minute;
    await page.waitForSelector('tr[data-subject="acme/widgets#1"][data-state="stale"]', { timeout: 15_000 });
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(
      true,
    );
    expect(await row("acme/widgets#1").textContent()).toContain("32 min ago");

    mkdirSync("test-results/screenshots", { recursive: true });
    await page.screenshot({ path: "test-results/screenshots/dashboard-fleet.png", fullPage: true });
    // Readable on a phone: rows become cards, nothing overflows sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: "test-results/screenshots/dashboard-fleet-phone.png", fullPage: true });
    expect(dialogs).toStrictEqual([]);
    await context.close();
  });
});
