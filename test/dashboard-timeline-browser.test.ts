// The dashboard's last 24 hours in a real browser (Debian's chromium through playwright-core): lanes, bars, markers,
// notifications and GHE links, hostile names inert, with screenshots at desktop and phone width in test-results/screenshots/.
import { existsSync, mkdirSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NotifyEvent } from "../src/config/repo-config.js";
import { createTokenMinter } from "../src/lease/tokens.js";
import { MemoryOutboxStore } from "../src/providers/memory/memory-outbox-store.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import { type AppHarness, startApp, testAdminToken, testTokenSecret } from "./support/app-harness.js";
import { minute, seedAgentClaim, seedHumanClaim } from "./support/seed-claims.js";
// Off the network: the page's one installation-account read meets nock, finds no mock, and the page names the installation by id.
import "./support/github-fake/index.js";

const chromiumPath = "/usr/bin/chromium";
const available = existsSync(chromiumPath);
if (!available && process.env.CI === "true") {
  throw new Error(
    `${chromiumPath} is missing: CI must run the dashboard's browser tests (apt-get install chromium).`,
  );
}
if (!available)
  console.warn(`Skipping the dashboard timeline browser test: ${chromiumPath} is not installed.`);

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

export const screenshotDir = "test-results/screenshots";
const hour = 60 * minute;
const T0 = Date.parse("2026-11-29T12:00:00Z");
const widgets = { installationId: 7, repoId: 1001 };
const gadgets = { installationId: 7, repoId: 2002 };
const alice = { login: "octo-agent", runtime: "codex", sessionId: "s-alice", host: "build-1" };
const bob = { login: "octo-agent", runtime: "claude-code", sessionId: "s-bob" };
/** A session whose names try to be markup and a team mention. */
const carol = { login: "night-agent", runtime: "<script>alert('lane')</script>", sessionId: "@org/team" };

/** A settled delivery in the outbox, as the sender leaves it after posting to a sink. */
async function delivered(
  outbox: MemoryOutboxStore,
  event: NotifyEvent,
  subject: string,
  at: number,
  data: Record<string, unknown>,
) {
  const id = `evt_${event}_${at}`;
  const notification = { event, id, at: new Date(at).toISOString(), subject, installationId: 7, data };
  await outbox.enqueue(id, [{ id: `${id}.sink1`, sinkId: "sink1", notification }], at);
  const { deliveries } = await outbox.claimDue({ now: at, leaseMs: minute, limit: 10, claimant: "test" });
  for (const delivery of deliveries) await outbox.settle(delivery, "test", { kind: "sent" }, at);
}

describe.skipIf(!available)("the dashboard's last 24 hours in chromium", () => {
  let browser: Browser;
  let harness: AppHarness;
  const stores = createMemoryStores({ now: () => harness?.clock.now ?? T0 });
  const outbox = new MemoryOutboxStore();

  beforeAll(async () => {
    harness = await startApp({
      stores,
      adminToken: testAdminToken,
      now: T0,
      githubBaseUrl: "https://ghe.example.com/api/v3",
      notify: { outbox },
    });
    // #1: alice's claim, taken over by bob three hours ago (alice had gone silent).
    await seedAgentClaim(stores, {
      key: { ...widgets, issue: 1 },
      repo: "acme/widgets",
      actor: alice,
      now: T0 - 6 * hour,
    });
    await seedAgentClaim(stores, {
      key: { ...widgets, issue: 1 },
      repo: "acme/widgets",
      actor: bob,
      now: T0 - 3 * hour,
      takeover: true,
    });
    // #3: carol's claim, reaped after she went silent (settled deliveries are listed newest first).
    const reaped = await seedAgentClaim(stores, {
      key: { ...widgets, issue: 3 },
      repo: "acme/widgets",
      actor: carol,
      now: T0 - 12 * hour,
    });
    await stores.claims.endClaim({
      key: reaped.key,
      generation: reaped.generation,
      now: T0 - 9 * hour,
      to: "reaped",
      bump: true,
    });
    await delivered(outbox, "reaped", "acme/widgets#3", T0 - 9 * hour, { generation: 1 });
    // #2: bob's live claim, which asked for a person and crossed its budget's warning.
    const live = await seedAgentClaim(stores, {
      key: { ...widgets, issue: 2 },
      repo: "acme/widgets",
      actor: bob,
      now: T0 - 20 * minute,
      title: "Wire the parser",
    });
    // Its spend so far, reported on a heartbeat (the store sums it per subject).
    const beat = await stores.claims.heartbeat({
      key: live.key,
      generation: live.generation,
      tokenDigest: createTokenMinter(testTokenSecret).digest(live.token),
      now: T0 - 20 * minute,
      phaseEditEveryMs: minute,
      usage: { costMicros: 4_200_000 },
    });
    expect(beat.kind).toBe("ok");
    await delivered(outbox, "needs-human", "acme/widgets#2", T0 - 10 * minute, {
      blocker: "<b>which API?</b>",
    });
    await delivered(outbox, "budget-warn", "acme/widgets#2", T0 - 5 * minute, { spentUsd: 4.2, limitUsd: 4 });
    // gadgets#4: alice's claim, taken by a maintainer with /reclaim.
    await seedAgentClaim(stores, {
      key: { ...gadgets, issue: 4 },
      repo: "acme/gadgets",
      actor: alice,
      now: T0 - 8 * hour,
    });
    await seedHumanClaim(stores, {
      key: { ...gadgets, issue: 4 },
      repo: "acme/gadgets",
      login: "maintainer",
      now: T0 - 2 * hour,
    });
    browser = await chromium.launch({ executablePath: chromiumPath, args: launchArgs });
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  it("draws a lane per session with its claims and events, links to GHE, and reads on a phone", {
    timeout: 60_000,
  }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on("dialog", async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    const failedRequests: string[] = [];
    page.on("requestfailed", (request) => failedRequests.push(request.url()));

    await page.goto(`${harness.url}/login`);
    await page.fill('input[name="token"]', testAdminToken);
    await Promise.all([page.waitForURL(`${harness.url}/`), page.click('button[type="submit"]')]);
    await page.waitForSelector("svg.timeline");

    const lanes = await page.locator("svg.timeline g[data-lane]").evaluateAll((gs) =>
      gs.map((g) => ({
        id: g.getAttribute("data-lane"),
        label: g.querySelector("text")?.textContent,
        bars: [...g.querySelectorAll("rect[data-claim]")].map(
          (r) =>
            `${r.getAttribute("data-claim")} g${r.getAttribute("data-generation")} ${r.getAttribute("data-state")}`,
        ),
        markers: [...g.querySelectorAll("g[data-marker]")].map(
          (m) => `${m.getAttribute("data-marker")} ${m.getAttribute("data-on")}`,
        ),
      })),
    );
    // Most recently active lane first.
    expect(lanes).toStrictEqual([
      {
        id: "agent:octo-agent:claude-code:s-bob",
        label: "acme/widgets#1, acme/widgets#2 — @octo-agent · claude-code · session s-bob",
        bars: ["acme/widgets#1 g2 reclaimable", "acme/widgets#2 g1 active"],
        markers: ["needs-human acme/widgets#2", "budget acme/widgets#2"],
      },
      {
        id: "human:maintainer",
        label: "acme/gadgets#4 — @maintainer (human)",
        bars: ["acme/gadgets#4 g2 human"],
        markers: [],
      },
      {
        id: "agent:octo-agent:codex:s-alice",
        label: "acme/gadgets#4, acme/widgets#1 — @octo-agent · codex · session s-alice · host build-1",
        bars: ["acme/gadgets#4 g1 superseded", "acme/widgets#1 g1 superseded"],
        markers: ["takeover acme/widgets#1", "reclaim acme/gadgets#4"],
      },
      {
        id: "agent:night-agent:<script>alert('lane')</script>:@org/team",
        label: "acme/widgets#3 — @night-agent · <script>alert('lane')</script> · session @org/team",
        bars: ["acme/widgets#3 g1 reaped"],
        markers: ["reap acme/widgets#3"],
      },
    ]);
    // Bars sit inside the drawing, in time order: bob's takeover bar starts where alice's ends.
    const box = (selector: string) => page.locator(selector).first().boundingBox();
    const aliceBar = await box(
      'g[data-lane="agent:octo-agent:codex:s-alice"] rect[data-claim="acme/widgets#1"]',
    );
    const bobBar = await box(
      'g[data-lane="agent:octo-agent:claude-code:s-bob"] rect[data-claim="acme/widgets#1"]',
    );
    expect(Math.abs(aliceBar!.x + aliceBar!.width - bobBar!.x)).toBeLessThan(2);
    expect(bobBar!.y).toBeLessThan(aliceBar!.y);
    // Alice held gadgets#4 and widgets#1 at once: two rows of her lane.
    const aliceOther = await box(
      'g[data-lane="agent:octo-agent:codex:s-alice"] rect[data-claim="acme/gadgets#4"]',
    );
    expect(aliceOther!.y).toBeLessThan(aliceBar!.y);

    // Links go to the GHE host the App talks to: subjects, PRs, branches, notifications; a bar opens the subject's page.
    expect(
      await page.locator('a[href="https://ghe.example.com/acme/widgets/issues/2"]').count(),
    ).toBeGreaterThanOrEqual(3);
    expect(
      await page
        .locator(
          'tr[data-subject="acme/widgets#2"] a[href="https://ghe.example.com/acme/widgets/tree/agent/s-bob/2-work"]',
        )
        .count(),
    ).toBe(1);
    expect(await page.locator('svg.timeline a[href="/subjects/acme/gadgets/4"]').count()).toBe(2);

    // Recent notifications, newest first; the spend panel only where the store keeps spend.
    expect(
      await page
        .locator("#recent-notifications tr[data-notification]")
        .evaluateAll((rows) =>
          rows.map((r) => `${r.getAttribute("data-notification")} ${r.getAttribute("data-result")}`),
        ),
    ).toStrictEqual(["budget-warn sent", "needs-human sent", "reaped sent"]);
    expect(
      await page
        .locator("#spend tr[data-spend-subject]")
        .evaluateAll((rows) =>
          rows.map((r) => [
            r.getAttribute("data-spend-subject"),
            r.querySelector('td[data-label="Spend"]')?.textContent,
          ]),
        ),
    ).toStrictEqual([["acme/widgets#2", "$4.20"]]);
    expect(await page.locator("#timeline-bounds").count()).toBe(0);

    // The page refreshes itself: the timeline is still drawn after a refresh, now an hour later.
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    harness.clock.now = T0 + hour;
    await page.waitForSelector('tr[data-subject="acme/widgets#2"][data-state="reclaimable"]', {
      timeout: 15_000,
    });
    expect(await page.locator('rect[data-claim="acme/widgets#2"]').getAttribute("data-state")).toBe(
      "reclaimable",
    );
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(
      true,
    );
    expect(await page.locator("svg.timeline g[data-lane]").count()).toBe(4);
    harness.clock.now = T0;
    await page.waitForSelector('tr[data-subject="acme/widgets#2"][data-state="active"]', { timeout: 15_000 });

    mkdirSync(screenshotDir, { recursive: true });
    await page.screenshot({ path: `${screenshotDir}/dashboard-desktop.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // On a phone the timeline scrolls inside its own box rather than shrinking its text away.
    const scroll = await page.locator(".timeline-scroll").evaluate((el) => el.scrollWidth > el.clientWidth);
    expect(scroll).toBe(true);
    // …and it opens at now: the live claim's bar is in view.
    const liveBar = await box('rect[data-claim="acme/widgets#2"]');
    expect(liveBar!.x).toBeGreaterThanOrEqual(0);
    expect(liveBar!.x + liveBar!.width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${screenshotDir}/dashboard-phone.png`, fullPage: true });

    expect(dialogs).toStrictEqual([]);
    expect(failedRequests.filter((url) => url.startsWith(harness.url))).toStrictEqual([]);
    await context.close();
  });
});
