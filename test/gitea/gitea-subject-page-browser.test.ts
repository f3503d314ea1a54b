// End to end in chromium: a Gitea claim's dashboard row links to its subject page (/subjects/gitea/{record}/…), which shows it with Gitea links; its "clear needs-human" is clicked through the confirm page and lands on the Gitea simulator. Screenshots at desktop and phone widths.
import { existsSync, mkdirSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClaimHoldClient } from "../../src/agent/client/index.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type AppHarness, startApp, testAdminToken, testCredentials } from "../support/app-harness.js";
import { probeRedis, uniqueKeyPrefix } from "../support/redis.js";
import {
  agentToken,
  botLogin,
  type GiteaSimFixture,
  giteaInstallation,
  handMadeHooksGitea,
  startGiteaSimFixture,
} from "./sim-fixture.js";

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
const repo = "octo/widgets";

async function clickAndWait(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.locator(selector).click()]);
}

describe.skipIf(!available || !redisProbe.available)("a Gitea subject's dashboard page in chromium", () => {
  const clock = { now: Date.parse("2026-12-02T10:00:00Z") };
  let gitea: GiteaSimFixture;
  let stack: LocalStack<AppHarness>;
  let browser: Browser;
  let issue: SimIssue;

  beforeAll(async () => {
    mkdirSync(screenshotDir, { recursive: true });
    gitea = await startGiteaSimFixture(clock);
    issue = gitea.sim.state.addIssue(gitea.repo, { title: "Paint the <b>widgets</b>", author: "maintainer" });
    stack = await startLocalStack({
      redis: { kind: "shared", keyPrefix: uniqueKeyPrefix("gitea-dash-browser") },
      startApp: (wiring) =>
        startApp({
          stores: wiring.stores,
          fences: wiring.fences,
          githubBaseUrl: wiring.githubBaseUrl,
          appId: 1,
          now: clock.now,
          adminToken: testAdminToken,
          gitea: handMadeHooksGitea(gitea.sim),
        }),
      credentials: testCredentials(1),
    });
    browser = await chromium.launch({ executablePath: chromiumPath, args: launchArgs });
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await gitea?.sim.close();
  });

  it("the row links to the Gitea subject page; clear needs-human is confirmed there and changes Gitea", {
    timeout: 90_000,
  }, async () => {
    const agent = createClaimHoldClient({
      baseUrl: stack.app.url,
      githubToken: agentToken,
      forge: "gitea",
      retries: 0,
      sleep: async (ms) => {
        stack.app.clock.now += ms;
      },
    });
    const { lease } = await agent.claim({
      repo,
      issue: issue.number,
      actor: { runtime: "claude-code", sessionId: "g1" },
      branch: "agent/g1/1-paint",
    });
    for (const gap of [8_000, 12_000, 10_000]) {
      stack.app.clock.now += gap;
      await agent.heartbeat(lease, { phase: "coding" });
    }
    await agent.heartbeat(lease, { needsHuman: true, blocker: "which colour?" });

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on("dialog", async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    await page.goto(`${stack.app.url}/login`);
    await page.fill('input[name="token"]', testAdminToken);
    await Promise.all([page.waitForURL(`${stack.app.url}/`), page.click('button[type="submit"]')]);

    const subjectPage = `/subjects/gitea/${giteaInstallation}/octo/widgets/${issue.number}`;
    const link = page.locator(`tr[data-subject="${repo}#${issue.number}"] a[data-subject-page]`);
    expect(await link.getAttribute("href")).toBe(subjectPage);
    await Promise.all([page.waitForURL(`${stack.app.url}${subjectPage}`), link.click()]);

    expect(await page.locator("h1").textContent()).toContain(`${repo}#${issue.number}`);
    expect(await page.locator("h1 a.gh").textContent()).toBe("Gitea");
    expect(await page.locator("h1 a.gh").getAttribute("href")).toBe(
      `${gitea.sim.url}/octo/widgets/issues/${issue.number}`,
    );
    expect(await page.locator("#subject-title").textContent()).toBe("Paint the <b>widgets</b>");
    expect(await page.locator("#blocker").textContent()).toBe("which colour? (asks for a person)");
    expect(await page.locator('#heartbeat-sparkline circle[data-gap-ms="12000"]').count()).toBe(1);
    expect(await page.locator('#heartbeat-sparkline circle[data-gap-ms="8000"]').count()).toBe(1);
    expect(await page.locator("#claim-comment").getAttribute("href")).toMatch(
      new RegExp(`^${gitea.sim.url}/octo/widgets/issues/${issue.number}#issuecomment-\\d+$`),
    );
    expect(await page.locator("#needs-person").textContent()).toContain("@fleet-bot asks for one");
    await page.screenshot({ path: `${screenshotDir}/gitea-subject-page-desktop.png`, fullPage: true });

    await clickAndWait(page, 'button[data-action="clear-needs-human"]');
    expect(await page.locator("#action-plan").textContent()).toContain(
      `Clear needs-human on ${repo}#${issue.number} on Gitea`,
    );
    await page.fill('textarea[name="note"]', "blue");
    await clickAndWait(page, 'button[data-confirm="clear-needs-human"]');
    expect(await page.locator("#action-result").getAttribute("data-done")).toBe("true");
    const labels = issue.labelIds.map((id) => gitea.repo.labels.find((label) => label.id === id)?.name);
    expect(labels).toEqual(["agent:claimed"]);
    expect(issue.comments.at(-1)).toMatchObject({
      author: botLogin,
      body: expect.stringContaining(
        "✅ An operator (claim-hold dashboard) cleared needs-human (generation 1).",
      ),
    });

    // Back to the subject page: nothing needs a person now; at a phone's width nothing overflows.
    await clickAndWait(page, "#back");
    expect(new URL(page.url()).pathname).toBe(subjectPage);
    expect(await page.locator("#needs-person").count()).toBe(0);
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${screenshotDir}/gitea-subject-page-phone.png`, fullPage: true });
    expect(dialogs).toStrictEqual([]);
    await context.close();
  });
});
