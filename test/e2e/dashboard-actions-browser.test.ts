// End to end in chromium, at desktop and phone widths: every operator action clicked through its confirm page against the simulator, with screenshots.
import { existsSync, mkdirSync } from "node:fs";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NotifyWorld, startNotifyWorld } from "../notify/support/notify-world.js";
import { startSinkServer } from "../notify/support/sink-server.js";
import { testAdminToken } from "../support/app-harness.js";
import { probeRedis } from "../support/redis.js";
import {
  claimMarkers,
  type E2eWorld,
  maintainer,
  repo,
  shortConfig,
  startWorld,
} from "./support/e2e-world.js";

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
const screenshotDir = "test-results";
const redisProbe = await probeRedis();

const widths = [
  { name: "desktop", viewport: { width: 1280, height: 900 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
] as const;

describe.skipIf(!available || !redisProbe.available)("the dashboard's operator actions in chromium", () => {
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(screenshotDir, { recursive: true });
    browser = await chromium.launch({ executablePath: chromiumPath, args: launchArgs });
  });

  afterAll(async () => {
    await browser?.close();
  });

  for (const { name, viewport } of widths) {
    it(`${name}: release, hand back, janitor dry run and apply, pause and resume`, {
      timeout: 120_000,
    }, async () => {
      const world: E2eWorld = await startWorld({
        issues: [
          { number: 1, title: "Agent work" },
          { number: 2, title: "Alice's work" },
          { number: 3, title: "Going stale" },
        ],
      });
      try {
        const { sim, app } = world;
        await world.agent().claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
        sim.comment({ repo, issue: 2, login: maintainer.login, body: "/reclaim" });
        await world.agent().claim({ repo, issue: 3, actor: { runtime: "pi", sessionId: "C" } });
        await sim.flush();

        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        const dialogs: string[] = [];
        page.on("dialog", async (dialog) => {
          dialogs.push(dialog.message());
          await dialog.dismiss();
        });
        await page.goto(`${app.url}/login`);
        await page.fill('input[name="token"]', testAdminToken);
        await Promise.all([page.waitForURL(`${app.url}/`), page.click('button[type="submit"]')]);
        await page.screenshot({ path: `${screenshotDir}/dashboard-actions-${name}.png`, fullPage: true });

        // Release #1, from its row on a desktop, from its subject page on a phone (the row is compact there).
        await clickAndWait(
          page,
          (await openActions(page, app.url, 1, name)).locator('button[data-action="release"]'),
        );
        expect(await page.locator("#action-plan").textContent()).toContain(`Release ${repo}#1`);
        await page.fill('textarea[name="note"]', "parser rewrite stalled");
        await page.screenshot({
          path: `${screenshotDir}/dashboard-actions-confirm-${name}.png`,
          fullPage: true,
        });
        await clickAndWait(page, 'button[data-confirm="release"]');
        expect(await page.locator("#action-result").getAttribute("data-done")).toBe("true");
        await sim.flush();
        expect(sim.issue(repo, 1)).toMatchObject({ assignees: [], labels: [] });
        expect(sim.issue(repo, 1).comments.at(-1)?.body).toContain("Note: parser rewrite stalled");
        expect(claimMarkers(sim, 1).at(-1)).toEqual({ generation: 2, state: "released" });

        // Hand #2 back to the queue (a person holds it).
        await clickAndWait(
          page,
          (await openActions(page, app.url, 2, name)).locator('button[data-action="requeue"]'),
        );
        await clickAndWait(page, 'button[data-confirm="requeue"]');
        expect(await page.locator("#action-result").getAttribute("data-done")).toBe("true");
        await sim.flush();
        expect(sim.issue(repo, 2).assignees).toEqual([]);

        // #3 goes stale: the janitor's dry run lists it and writes nothing; Apply relabels it.
        app.clock.now += 31_000;
        await page.goto(`${app.url}/`);
        await clickAndWait(page, 'button[data-action="janitor-run"]');
        const plan = await page.locator("#sweep-plan li").allTextContents();
        expect(plan).toHaveLength(1);
        expect(plan[0]).toMatch(new RegExp(`^${repo}#3: relabel-stale`));
        await page.screenshot({
          path: `${screenshotDir}/dashboard-actions-janitor-plan-${name}.png`,
          fullPage: true,
        });
        await sim.flush();
        expect(sim.issue(repo, 3).labels).toEqual(["agent:claimed"]);
        await clickAndWait(page, 'button[data-confirm="janitor-run"]');
        await sim.flush();
        expect(sim.issue(repo, 3).labels).toEqual(["agent:stale"]);

        // Pause the installation, then resume it.
        await page.goto(`${app.url}/`);
        await clickAndWait(page, 'button[data-action="janitor-pause"]');
        await clickAndWait(page, 'button[data-confirm="janitor-pause"]');
        await page.goto(`${app.url}/`);
        expect(await page.locator("[data-installation-controls='42']").textContent()).toContain(
          "janitor paused",
        );
        expect((await app.services.janitor.sweep()).pausedInstallations).toEqual([42]);
        await clickAndWait(page, 'button[data-action="janitor-resume"]');
        await clickAndWait(page, 'button[data-confirm="janitor-resume"]');
        await page.goto(`${app.url}/`);
        expect(await page.locator("[data-installation-controls='42']").textContent()).toContain(
          "janitor running",
        );
        expect(dialogs).toEqual([]);
        await context.close();
      } finally {
        await world.close();
      }
    });

    it(`${name}: a notification waiting to retry is retried now and delivered once; another is dropped and never sent`, {
      timeout: 120_000,
    }, async () => {
      const sink = await startSinkServer();
      sink.answer = 500;
      const notify = await startNotifyWorld({
        config: shortConfig,
        sinks: [{ url: `${sink.base}/hooks/SECRET`, format: "json", events: ["takeover"] }],
      });
      try {
        const { app } = notify;
        const [retried, dropped] = (await failedTakeovers(notify, [1, 2])) as [string, string];
        expect(sink.requests).toHaveLength(2);

        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        await page.goto(`${app.url}/login`);
        await page.fill('input[name="token"]', testAdminToken);
        await Promise.all([page.waitForURL(`${app.url}/`), page.click('button[type="submit"]')]);
        const row = (id: string) =>
          page.locator(`#retrying-notifications tr:has(input[name="delivery"][value="${id}"])`);
        await row(retried).waitFor();
        // Both buttons are on the screen's width, a phone's too.
        for (const action of ["notification-retry", "notification-drop"]) {
          const box = await row(retried).locator(`button[data-action="${action}"]`).boundingBox();
          expect(box, action).not.toBeNull();
          expect(box!.x + box!.width, action).toBeLessThanOrEqual(viewport.width);
        }
        await page.locator("#retrying-notifications").screenshot({
          path: `${screenshotDir}/dashboard-actions-notifications-${name}.png`,
        });
        expect(await page.content()).not.toContain("SECRET");

        // Retry now: the confirm page, then the result; the next round delivers it (the clock has not moved).
        sink.answer = 200;
        await clickAndWait(page, row(retried).locator('button[data-action="notification-retry"]'));
        expect(await page.locator("#action-plan").textContent()).toContain(
          `Retry the notification delivery ${retried} now`,
        );
        // The long delivery id wraps: the page is no wider than the screen.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          viewport.width,
        );
        await page.screenshot({
          path: `${screenshotDir}/dashboard-actions-notification-confirm-${name}.png`,
          fullPage: true,
        });
        await clickAndWait(page, 'button[data-confirm="notification-retry"]');
        expect(await page.locator("#action-result").getAttribute("data-done")).toBe("true");
        expect(await app.services.sender.tick()).toBe(1);
        expect(sink.requests).toHaveLength(3);
        expect(JSON.parse(sink.requests[2]!.body)).toMatchObject({ subject: `${repo}#1` });

        // Drop the other: gone from the list, listed as dropped, never sent however long the clock runs.
        await page.goto(`${app.url}/`);
        await clickAndWait(page, row(dropped).locator('button[data-action="notification-drop"]'));
        await clickAndWait(page, 'button[data-confirm="notification-drop"]');
        expect(await page.locator("#action-result").textContent()).toContain(
          `The notification delivery ${dropped} was dropped`,
        );
        await page.screenshot({
          path: `${screenshotDir}/dashboard-actions-notification-dropped-${name}.png`,
          fullPage: true,
        });
        app.clock.now += 3_600_000;
        expect(await app.services.sender.tick()).toBe(0);
        expect(sink.requests).toHaveLength(3);
        await page.goto(`${app.url}/`);
        await page.locator("#recent-notifications").waitFor();
        expect(await page.locator("#retrying-notifications tr[data-retrying]").count()).toBe(0);
        expect(await page.locator("#recent-notifications").textContent()).toContain(
          "dropped by an operator (dashboard)",
        );
        await context.close();
      } finally {
        await notify.close();
        await sink.close();
      }
    });
  }

  for (const { name, viewport } of widths) {
    it(`${name}: clear needs-human, from the "needs you" panel on a desktop and the subject page on a phone`, {
      timeout: 120_000,
    }, async () => {
      const world: E2eWorld = await startWorld({ issues: [{ number: 1, title: "Asks for a person" }] });
      try {
        const { sim, app } = world;
        const agent = world.agent();
        const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
        await agent.heartbeat(lease, { needsHuman: true, blocker: "which schema?" });
        await sim.flush();
        expect(sim.issue(repo, 1).labels).toContain("agent:needs-human");

        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        await page.goto(`${app.url}/login`);
        await page.fill('input[name="token"]', testAdminToken);
        await Promise.all([page.waitForURL(`${app.url}/`), page.click('button[type="submit"]')]);
        const button =
          name === "desktop"
            ? page.locator(
                '#needs-you li[data-attention="needs-human"] button[data-action="clear-needs-human"]',
              )
            : await (async () => {
                await page.goto(`${app.url}/subjects/${repo}/1`);
                return page.locator('#actions button[data-action="clear-needs-human"]');
              })();
        await button.scrollIntoViewIfNeeded();
        await page.screenshot({
          path: `${screenshotDir}/dashboard-actions-clear-needs-human-${name}.png`,
          fullPage: true,
        });
        await clickAndWait(page, button);
        expect(await page.locator("#action-plan").textContent()).toContain(`Clear needs-human on ${repo}#1`);
        expect(await page.locator('#needs-person [data-needs="ask"]').textContent()).toContain(
          "which schema?",
        );
        await page.screenshot({
          path: `${screenshotDir}/dashboard-actions-clear-needs-human-confirm-${name}.png`,
          fullPage: true,
        });
        // Nothing changes before the confirm.
        expect(
          await world.stores.claims.get({ installationId: 42, repoId: 1296269, issue: 1 }),
        ).toMatchObject({
          needsHuman: true,
        });
        await clickAndWait(page, 'button[data-confirm="clear-needs-human"]');
        expect(await page.locator("#action-result").getAttribute("data-done")).toBe("true");
        await page.screenshot({
          path: `${screenshotDir}/dashboard-actions-clear-needs-human-done-${name}.png`,
          fullPage: true,
        });
        await sim.flush();
        expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);
        expect(sim.issue(repo, 1).comments.at(-1)?.body).toContain(
          "An operator (claim-hold dashboard) cleared needs-human (generation 1).",
        );
        expect(
          await world.stores.claims.get({ installationId: 42, repoId: 1296269, issue: 1 }),
        ).not.toHaveProperty("needsHuman");
        // The way back: the subject page offers no clear any more.
        await clickAndWait(page, "#back");
        expect(await page.locator('button[data-action="clear-needs-human"]').count()).toBe(0);
        await context.close();
      } finally {
        await world.close();
      }
    });
  }
});

/** A takeover of each issue, its one notification tried once and refused by the sink: waiting to retry. */
async function failedTakeovers(notify: NotifyWorld, issues: number[]): Promise<string[]> {
  const { app } = notify;
  for (const issue of issues) {
    await notify.agent().claim({ repo, issue, actor: { runtime: "claude-code", sessionId: `A${issue}` } });
  }
  app.clock.now += 30_000;
  for (const issue of issues) {
    await notify
      .agent()
      .claim({ repo, issue, actor: { runtime: "codex", sessionId: `B${issue}` }, takeover: true });
  }
  await notify.sim.flush();
  await app.services.notifier.flush();
  expect(await app.services.sender.tick()).toBe(issues.length);
  const waiting = await notify.outbox.retrying(10);
  return issues.map((issue) => {
    const delivery = waiting.find((d) => d.subject === `${repo}#${issue}`);
    if (!delivery) throw new Error(`no notification of ${repo}#${issue} waits to retry`);
    return delivery.id;
  });
}

/** Where a subject's action buttons are at this width: its fleet row on a desktop, its subject page on a phone. */
async function openActions(page: Page, url: string, issue: number, width: string): Promise<Locator> {
  if (width === "desktop") {
    await page.goto(`${url}/`);
    const cell = page.locator(`tr[data-subject="${repo}#${issue}"] td[data-label="Actions"]`);
    await cell.waitFor();
    return cell;
  }
  await page.goto(`${url}/subjects/${repo}/${issue}`);
  const section = page.locator("#actions");
  await section.waitFor();
  return section;
}

/** Clicks a form's button and waits for the page its POST answers. */
async function clickAndWait(page: Page, target: string | Locator): Promise<void> {
  const button = typeof target === "string" ? page.locator(target) : target;
  await Promise.all([page.waitForNavigation(), button.click()]);
}
