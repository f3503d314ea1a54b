// GiteaClient itself: writes through the limiter and reads around it, the token kept out of sight, a request Gitea does not answer abandoned.
import { once } from "node:events";
import { type AddressInfo, createServer } from "node:net";
import { inspect } from "node:util";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GiteaClient, giteaRequestTimeoutMs } from "../../src/providers/gitea/gitea-client.js";
import { GiteaHttpError, giteaStatusOf } from "../../src/providers/gitea/gitea-routes.js";
import { serialWriteLimiter, type WriteLimiter } from "../../src/providers/gitea/serial-write-limiter.js";
import { giteaBotToken, giteaUrl, nockGetIssue, nockSetAssignees } from "../support/gitea-fake.js";
import { botToken, type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

describe("GiteaClient with a write limiter", () => {
  it("sends writes through the limiter and reads around it", async () => {
    const routed: number[] = [];
    const limiter: WriteLimiter = {
      run: (call) => {
        routed.push(1);
        return call();
      },
    };
    const client = new GiteaClient({ baseUrl: giteaUrl, token: giteaBotToken, writeLimiter: limiter });
    nockGetIssue([], 12, { assignees: [], labels: [] });
    nockSetAssignees([], 12, ["fleet-bot"]);
    await client.getIssue("octo", "widgets", 12);
    expect(routed).toEqual([]);
    await client.setAssignees("octo", "widgets", 12, ["fleet-bot"]);
    expect(routed).toEqual([1]);
  });
});

describe("GiteaClient and its token", () => {
  it("keeps the token out of what serialising or inspecting the client shows", () => {
    const client = new GiteaClient({ baseUrl: giteaUrl, token: giteaBotToken });
    expect(JSON.stringify(client)).not.toContain(giteaBotToken);
    expect(inspect(client, { depth: 5 })).not.toContain(giteaBotToken);
  });
});

describe("GiteaClient and a request fetch refuses", () => {
  it("throws an error naming the request kind and path, never the URL's user name, password or the token", async () => {
    const client = new GiteaClient({
      baseUrl: "https://bot:hunter2-pass@gitea.example.com",
      token: giteaBotToken,
    });
    const error = await client.getIssue("octo", "widgets", 7).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("get-issue GET /repos/octo/widgets/issues/7: no answer from Gitea");
    const shown = inspect(error, { depth: 10 });
    expect(shown).not.toContain("hunter2");
    expect(shown).not.toContain(giteaBotToken);
  });

  it("keeps the system error code of a connection that fails", async () => {
    const server = createServer().listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    server.close();
    await once(server, "close");
    const client = new GiteaClient({ baseUrl: `http://127.0.0.1:${port}`, token: giteaBotToken });
    const error = await client.getUser().catch((e: unknown) => e);
    expect((error as Error).message).toBe("get-user GET /user: no answer from Gitea (ECONNREFUSED)");
  });
});

describe("GiteaClient and a Gitea that does not answer", () => {
  const clock = { now: Date.parse("2026-12-03T10:00:00Z") };
  let fixture: GiteaSimFixture;
  beforeAll(async () => {
    fixture = await startGiteaSimFixture(clock);
  });
  afterAll(() => fixture.sim.close());

  it("abandons a held read after its timeout with the error a 5xx gives (504), naming the route, never the token", async () => {
    const { sim, repo } = fixture;
    const issue = sim.state.addIssue(repo, { title: "Hangs", author: "maintainer" });
    const client = new GiteaClient({ baseUrl: sim.url, token: botToken, timeoutMs: 150 });
    const held = sim.hold({ route: "GET /repos/{owner}/{repo}/issues/{index}", issue: issue.number });
    const started = Date.now();
    const error = await client.getIssue("octo", "widgets", issue.number).catch((e: unknown) => e);
    held.release();
    expect(error).toBeInstanceOf(GiteaHttpError);
    expect(giteaStatusOf(error)).toBe(504);
    expect((error as GiteaHttpError).kind).toBe("get-issue");
    expect((error as Error).message).toBe(
      `GET /repos/octo/widgets/issues/${issue.number}: Gitea did not answer within 150 ms`,
    );
    expect((error as Error).message).not.toContain(botToken);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("a write answering later than its timeout fails as a 5xx and frees the write limiter for the next write", async () => {
    const { sim, repo } = fixture;
    const issue = sim.state.addIssue(repo, { title: "Slow", author: "maintainer" });
    const client = new GiteaClient({
      baseUrl: sim.url,
      token: botToken,
      timeoutMs: 150,
      writeLimiter: serialWriteLimiter({ spacingMs: 0 }),
    });
    sim.fail({ writes: true, issue: issue.number, delayMs: 1_000 });
    const slow = client.setAssignees("octo", "widgets", issue.number, ["fleet-bot"]).catch((e: unknown) => e);
    const next = client.createComment("octo", "widgets", issue.number, "after the slow one");
    expect(giteaStatusOf(await slow)).toBe(504);
    expect((await next).id).toBeGreaterThan(0);
  });

  it("the default timeout is the GitHub requests' (8 s)", () => {
    expect(giteaRequestTimeoutMs).toBe(8_000);
  });
});
