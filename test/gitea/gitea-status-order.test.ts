// Which `claim-hold` status is the App's check: the highest index per context, as Gitea's branch protection reads it, never an order of one-second times.
import { describe, expect, it } from "vitest";
import { decideCheckWrite } from "../../src/fence/check-run-plan.js";
import { giteaBotAccount } from "../../src/providers/gitea/gitea-bot-account.js";
import { existingOf, GiteaChecksProvider } from "../../src/providers/gitea/gitea-checks-provider.js";
import { GiteaClient } from "../../src/providers/gitea/gitea-client.js";
import type { GiteaCommitStatus } from "../../src/providers/gitea/gitea-schemas.js";
import { agentToken, botLogin, botToken, startGiteaSimFixture } from "./sim-fixture.js";

const status = (id: number, state: string, login: string, context = "claim-hold"): GiteaCommitStatus => ({
  id,
  context,
  status: state,
  description: `${login} says ${state}`,
  target_url: null,
  creator: { id, login },
});
const appFailure = status(10, "failure", botLogin);
const foreignSuccess = status(11, "success", "fleet-bot");
const appSuccess = status(12, "success", botLogin);

describe("existingOf", () => {
  it.each<[string, GiteaCommitStatus[], number | null]>([
    ["the App's alone", [appFailure], 10],
    ["a foreign one above the App's, listed first", [foreignSuccess, appFailure], null],
    ["a foreign one above the App's, listed last (a tie of one second)", [appFailure, foreignSuccess], null],
    ["the App's above a foreign one, in any order", [appFailure, appSuccess, foreignSuccess], 12],
    [
      "another context above the App's counts for nothing",
      [appFailure, status(13, "failure", "ci", "ci")],
      10,
    ],
    ["none under the App's context", [status(13, "success", "ci", "ci")], null],
  ])("%s", (_, statuses, id) => {
    expect(existingOf(statuses, botLogin)?.id ?? null).toBe(id);
  });
});

describe("reading a head's statuses", () => {
  it("asks for them by index (sort=leastindex): the App sees a foreign status of the same second on top and writes over it", async () => {
    const rows = [appFailure, foreignSuccess];
    const queries: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      const url = new URL(String(input));
      if (url.pathname.endsWith("/user"))
        return new Response(JSON.stringify({ id: 1, login: botLogin }), { status: 200 });
      queries.push(url.search);
      // Gitea's answer for two rows of one `updated_unix`: `leastindex` is `index` DESC; otherwise storage order.
      const sort = url.searchParams.get("sort");
      return new Response(JSON.stringify(sort === "leastindex" ? [...rows].reverse() : rows), {
        status: 200,
      });
    };
    const client = new GiteaClient({ baseUrl: "http://gitea.test", token: "t0k", fetch: fakeFetch });
    const checks = new GiteaChecksProvider({
      client,
      bot: giteaBotAccount(client),
      webUrl: "http://gitea.test",
    });
    const existing = await checks.find({ installationId: 1, repo: "octo/widgets" }, "abc123");
    expect(queries).toEqual(["?sort=leastindex&limit=50"]);
    expect(existing).toBeNull();
    const write = decideCheckWrite(existing, {
      conclusion: "failure",
      title: "Superseded holder",
      summary: "",
      text: "",
      annotations: [],
    });
    expect(write.kind).not.toBe("none");
  });

  it("the simulator orders as Gitea does: one-second times tie in storage order, `leastindex` is the highest index first", async () => {
    const clock = { now: Date.parse("2026-12-02T10:00:00.100Z") };
    const fixture = await startGiteaSimFixture(clock);
    try {
      const sha = "c".repeat(40);
      const post = async (token: string, state: string) => {
        const answer = await fetch(`${fixture.sim.url}/api/v1/repos/octo/widgets/statuses/${sha}`, {
          method: "POST",
          headers: { authorization: `token ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ state, context: "claim-hold", description: state }),
        });
        return ((await answer.json()) as { id: number }).id;
      };
      const first = await post(botToken, "failure");
      clock.now += 500; // the same second
      const second = await post(agentToken, "success");
      const ids = async (sort: string) => {
        const answer = await fetch(
          `${fixture.sim.url}/api/v1/repos/octo/widgets/statuses/${sha}?sort=${sort}&limit=50`,
          { headers: { authorization: `token ${botToken}` } },
        );
        return ((await answer.json()) as { id: number }[]).map((row) => row.id);
      };
      expect(await ids("recentupdate")).toEqual([first, second]);
      expect(await ids("leastindex")).toEqual([second, first]);
      expect(await ids("highestindex")).toEqual([first, second]);
    } finally {
      await fixture.sim.close();
    }
  });
});
