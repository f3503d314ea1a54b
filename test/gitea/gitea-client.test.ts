// GiteaClient itself: writes through the limiter and reads around it, the token kept out of sight.
import { inspect } from "node:util";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { GiteaClient } from "../../src/providers/gitea/gitea-client.js";
import type { WriteLimiter } from "../../src/providers/gitea/serial-write-limiter.js";
import { giteaBotToken, giteaUrl, nockGetIssue, nockSetAssignees } from "../support/gitea-fake.js";

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
