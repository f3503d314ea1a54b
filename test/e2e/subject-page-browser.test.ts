// End to end in chromium: one issue taken over and then reaped by the janitor; its dashboard row links to its subject page, which shows both in the history.
import { existsSync, mkdirSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testAdminToken } from "../support/app-harness.js";
import { probeRedis } from "../support/redis.js";
import { checkOf, type E2eWorld, fleet, repo, startWorld } from "./support/e2e-world.js";

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

describe.skipIf(!available || !redisProbe.available)("a subject's page after a takeover and a reap", () => {
  let world: E2eWorld;
  let browser: Browser;

  beforeAll(async () => {
    world = await startWorld({ issues: [{ number: 1, title: "Rewrite the <b>parser</b>" }] });
    browser = await chromium.launch({ executablePath: chromiumPath, args: launchArgs });
  });

  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it("shows generation 1 superseded by a takeover, generation 2 reaped, and the claim after them, newest first", {
    timeout: 90_000,
  }, async () => {
    const { sim, app } = world;
    const first = world.agent();
    const { lease } = await first.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "first" } });
    await first.heartbeat(lease, { phase: "coding" });
    // The first holder goes silent past reclaimAfter (60 s): a second session takes the issue over.
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
    // The second goes silent too: stale after 30 s, reaped after 60 s.
    app.clock.now += 31_000;
    await app.services.janitor.sweep();
    await sim.flush();
    app.clock.now += 30_000;
    const report = await app.services.janitor.sweep();
    await sim.flush();
    expect(report.actions).toEqual([{ subject: `${repo}#1`, action: "reap", reason: expect.any(String) }]);
    // A third session claims it afresh, so the fleet lists it again.
    const third = world.agent();
    const branch = "agent/third/1-parser";
    const again = await third.claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "third" }, branch });
    expect(again.lease.generation).toBe(4);
    await sim.flush();
    // It pushes, opens a PR closing #1 and attests the head: the check passes.
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "parser" });
    const pull = sim.openPull({
      repo,
      author: fleet.login,
      head: branch,
      title: "Parser",
      body: "Closes #1",
    });
    await sim.flush();
    await third.attest(again.lease, sha);
    await sim.flush();
    expect(checkOf(sim, sha).conclusion).toBe("success");

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on("dialog", async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    await page.goto(`${app.url}/subjects/octo/widgets/1`);
    // Behind the admin session like the fleet page.
    expect(new URL(page.url()).pathname).toBe("/login");
    await page.fill('input[name="token"]', testAdminToken);
    await Promise.all([page.waitForURL(`${app.url}/`), page.click('button[type="submit"]')]);

    // The installation is named by its account's login, read from GitHub.
    expect(await page.locator("section[data-installation='42'] h2").textContent()).toBe("octo");
    const link = page.locator(`tr[data-subject="${repo}#1"] a[data-subject-page]`);
    expect(await link.getAttribute("href")).toBe("/subjects/octo/widgets/1");
    await Promise.all([page.waitForURL(`${app.url}/subjects/octo/widgets/1`), link.click()]);

    expect(await page.locator("h1").textContent()).toContain(`${repo}#1`);
    expect(await page.locator("#subject-title").textContent()).toBe("Rewrite the <b>parser</b>");
    const history = await page
      .locator("#history tr[data-transition]")
      .evaluateAll((rows) =>
        rows.map(
          (r) =>
            `g${r.getAttribute("data-generation")} ${r.getAttribute("data-transition")} ${r.querySelector('td[data-label="Who"]')?.textContent?.trim()}`,
        ),
      );
    // Newest first: the reap of generation 2 and the takeover that superseded generation 1 (by its successor).
    expect(history).toStrictEqual([
      "g4 claimed pi @fleet-bot · session third",
      "g2 reaped —",
      "g2 claimed claude-code @fleet-bot · session second",
      "g1 superseded claude-code @fleet-bot · session second",
      "g1 claimed codex @fleet-bot · session first",
    ]);
    // Every time reads relative, its UTC time on hover.
    const firstTime = page.locator("#history time").first();
    expect(await firstTime.textContent()).toMatch(/ago$/);
    expect(await firstTime.getAttribute("title")).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    // Generation 4 starts its heartbeats afresh (generation 1's one beat came with no time passed).
    expect(await page.locator("#heartbeats").textContent()).toContain(
      "Generation 4 has sent no heartbeat yet.",
    );
    // The current incarnation's facts and its claim comment on GitHub.
    expect(await page.locator("#facts").textContent()).toContain("session third");
    expect(await page.locator("#claim-comment").getAttribute("href")).toMatch(
      /\/octo\/widgets\/issues\/1#issuecomment-\d+$/,
    );

    // Bad input answers JSON with nothing echoed back; a subject the App cannot read is a 404.
    const answer = async (path: string) => {
      const response = await page.request.get(`${app.url}${path}`, { maxRedirects: 0 });
      return { status: response.status(), body: await response.json() };
    };
    expect(await answer("/subjects/octo/widgets/0")).toStrictEqual({
      status: 422,
      body: {
        error: "invalid_request",
        message: "A subject page is /subjects/{owner}/{repo}/{issue number}.",
      },
    });
    expect((await answer("/subjects/octo/%3Cscript%3E/1")).status).toBe(422);
    expect(await answer("/subjects/elsewhere/tools/1")).toStrictEqual({
      status: 404,
      body: { error: "not_found", message: "elsewhere/tools#1 is not an issue the App can read." },
    });
    expect((await answer("/subjects/octo/widgets/99")).status).toBe(404);

    // The PR closing the issue, with the verdict the fence gives its head and a link to its check runs.
    const pr = page.locator(`#pull-requests tr[data-pull="${pull.number}"]`);
    expect(await pr.locator("[data-verdict]").textContent()).toBe("success");
    expect(await pr.locator('td[data-label="Checks"] a').getAttribute("href")).toMatch(
      new RegExp(`^http://[^/]+/octo/widgets/commit/${sha}/checks$`),
    );

    mkdirSync(screenshotDir, { recursive: true });
    await page.screenshot({ path: `${screenshotDir}/subject-page-desktop.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${screenshotDir}/subject-page-phone.png`, fullPage: true });
    expect(dialogs).toStrictEqual([]);
    await context.close();
  });
});
