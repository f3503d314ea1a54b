// End to end in chromium: a holder's heartbeats at varying gaps (fake clock) drawn as the subject page's sparkline and answered by GET …/claim; a takeover's new generation starts afresh.
import { existsSync, mkdirSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sparklineGeometry } from "../../src/dashboard/sparkline-geometry.js";
import { testAdminToken } from "../support/app-harness.js";
import { probeRedis } from "../support/redis.js";
import { type E2eWorld, repo, startWorld } from "./support/e2e-world.js";

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
const redisProbe = await probeRedis();
/** The e2e world's task class durations (shortConfig). */
const durations = { heartbeatMs: 10_000, ttlMs: 30_000, reclaimAfterMs: 60_000 };

/** What the page's sparkline draws: its generation, each mark's gap, level and place, and its line. */
async function sparkline(page: Page) {
  const svg = page.locator("#heartbeat-sparkline");
  return {
    generation: await svg.getAttribute("data-generation"),
    label: await svg.getAttribute("aria-label"),
    title: await svg.locator("> title").textContent(),
    polyline: await svg.locator("polyline").getAttribute("points"),
    referenceY: Number(await svg.locator("line[data-reference-ms]").getAttribute("y1")),
    marks: await svg.locator("circle").evaluateAll((circles) =>
      circles.map((c) => ({
        gapMs: Number(c.getAttribute("data-gap-ms")),
        level: c.getAttribute("data-level"),
        x: Number(c.getAttribute("cx")),
        y: Number(c.getAttribute("cy")),
      })),
    ),
  };
}

describe.skipIf(!available || !redisProbe.available)("a subject's heartbeat sparkline", () => {
  let world: E2eWorld;
  let browser: Browser;

  beforeAll(async () => {
    world = await startWorld({ issues: [{ number: 1, title: "Tune the scheduler" }] });
    browser = await chromium.launch({ executablePath: chromiumPath, args: launchArgs });
  });

  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it("draws the gaps between the live generation's beats, and starts afresh after a takeover", {
    timeout: 90_000,
  }, async () => {
    const { sim, app } = world;
    const first = world.agent();
    const { lease } = await first.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "first" } });
    await sim.flush();
    // Beats at varying gaps (the claim counts as the first beat); 35 s is past the 30 s ttl.
    const gaps = [10_000, 4_000, 25_000, 35_000, 9_000];
    for (const gap of gaps) {
      app.clock.now += gap;
      await first.heartbeat(lease, {});
    }
    await sim.flush();
    expect((await first.subject(repo, 1)).heartbeatGapsMs).toStrictEqual(gaps);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${app.url}/login`);
    await page.fill('input[name="token"]', testAdminToken);
    await Promise.all([page.waitForURL(`${app.url}/`), page.click('button[type="submit"]')]);
    await page.goto(`${app.url}/subjects/octo/widgets/1`);

    const drawn = await sparkline(page);
    const expected = sparklineGeometry(gaps, durations)!;
    expect(drawn.generation).toBe("1");
    expect(drawn.marks.map((m) => m.gapMs)).toStrictEqual(gaps);
    expect(drawn.marks.map((m) => m.level)).toStrictEqual([
      "on-time",
      "on-time",
      "on-time",
      "stale",
      "on-time",
    ]);
    expect(drawn.polyline).toBe(expected.polyline);
    expect(drawn.referenceY).toBe(expected.referenceY);
    // Oldest left; the longer the gap, the higher its mark (SVG's y grows downwards).
    const xs = drawn.marks.map((m) => m.x);
    expect(xs).toStrictEqual([...xs].sort((a, b) => a - b));
    const byGap = [...drawn.marks].sort((a, b) => a.gapMs - b.gapMs).map((m) => m.y);
    expect(byGap).toStrictEqual([...byGap].sort((a, b) => b - a));
    // The 35 s gap tops the scale; the 10 s interval's reference line sits at 10/35 of the height.
    expect(Math.min(...drawn.marks.map((m) => m.y))).toBe(drawn.marks[3]!.y);
    for (const text of [drawn.label, drawn.title]) {
      expect(text).toBe(
        "Gaps between the last 5 heartbeats of generation 1: min 4 s, median 10 s, max 35 s; " +
          "heartbeat interval 10 s; 1 at or past the ttl (30 s).",
      );
    }
    expect(await page.locator("#heartbeat-sparkline").getAttribute("role")).toBe("img");

    mkdirSync(screenshotDir, { recursive: true });
    await page.screenshot({ path: `${screenshotDir}/subject-sparkline-desktop.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const box = await page.locator("#heartbeat-sparkline").boundingBox();
    expect(box!.width).toBeLessThanOrEqual(390);
    expect(box!.width).toBeGreaterThan(200);
    await page.screenshot({ path: `${screenshotDir}/subject-sparkline-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });

    // The holder goes silent past reclaimAfter: another session takes the issue over (generation 2).
    app.clock.now += 61_000;
    const second = world.agent();
    const taken = await second.claim({
      repo,
      issue: 1,
      actor: { runtime: "claude-code", sessionId: "second" },
      takeover: true,
    });
    expect(taken.lease.generation).toBe(2);
    await sim.flush();
    await page.reload();
    expect(await page.locator("#heartbeat-sparkline").count()).toBe(0);
    expect(await page.locator("#heartbeats").textContent()).toContain(
      "Generation 2 has sent no heartbeat yet.",
    );

    for (const gap of [7_000, 11_000]) {
      app.clock.now += gap;
      await second.heartbeat(taken.lease, {});
    }
    await sim.flush();
    await page.reload();
    const fresh = await sparkline(page);
    expect(fresh.generation).toBe("2");
    expect(fresh.marks.map((m) => m.gapMs)).toStrictEqual([7_000, 11_000]);
    expect(fresh.polyline).toBe(sparklineGeometry([7_000, 11_000], durations)!.polyline);
    expect(fresh.label).toContain("last 2 heartbeats of generation 2: min 7 s, median 9 s, max 11 s");
    expect((await second.subject(repo, 1)).heartbeatGapsMs).toStrictEqual([7_000, 11_000]);

    // Generation 2 goes silent and is reaped (its record bumped to 3): the page still shows the gaps
    // that led there, named by their generation; the API's field is for a live claim only.
    app.clock.now += 31_000;
    await app.services.janitor.sweep();
    await sim.flush();
    app.clock.now += 30_000;
    const report = await app.services.janitor.sweep();
    await sim.flush();
    expect(report.actions).toEqual([{ subject: `${repo}#1`, action: "reap", reason: expect.any(String) }]);
    await page.reload();
    const reaped = await sparkline(page);
    expect(reaped.generation).toBe("2");
    expect(reaped.marks.map((m) => m.gapMs)).toStrictEqual([7_000, 11_000]);
    expect((await second.subject(repo, 1)).heartbeatGapsMs).toBeUndefined();
    await context.close();
  });
});
