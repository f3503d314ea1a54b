// The dashboard's readable parts as pure decisions: what needs a person, relative times, time ranges, page links, lane names, cached account names.
import { describe, expect, it } from "vitest";
import { createAccountNames, giteaInstanceName, knownAccountNames } from "../src/dashboard/account-names.js";
import { accountLabels, pageHref } from "../src/dashboard/dashboard-page.js";
import { attentionItems } from "../src/dashboard/needs-you.js";
import type { FleetClaim, FleetView } from "../src/dashboard/read-fleet.js";
import { ago, utcText } from "../src/dashboard/relative-time.js";
import { subjectOfPath } from "../src/dashboard/subject-path.js";
import { timelineRangeOf } from "../src/dashboard/timeline/timeline-range.js";
import { laneLabel } from "../src/dashboard/timeline/timeline-svg.js";
import { giteaInstallationRecordId } from "../src/domain/forge.js";
import type { SweepReport } from "../src/janitor/janitor.js";

function claim(issue: number, extra: Partial<FleetClaim> = {}): FleetClaim {
  return {
    installationId: 7,
    repo: "acme/widgets",
    issue,
    subject: `acme/widgets#${issue}`,
    title: `Task ${issue}`,
    state: "active",
    reasons: ["heartbeat-live"],
    holder: { kind: "agent", login: "octo-agent" },
    taskClass: "author",
    generation: 1,
    branch: null,
    claimedAt: "2026-11-29T10:00:00.000Z",
    claimAgeSeconds: 0,
    lastHeartbeatAt: "2026-11-29T10:00:00.000Z",
    lastHeartbeatAgoSeconds: 0,
    phase: null,
    blocker: null,
    pullRequests: [],
    ...extra,
  };
}

const haltedReport: SweepReport = {
  at: "2026-11-29T10:00:00.000Z",
  installations: 1,
  examined: 10,
  actions: [],
  skipped: 0,
  halted: true,
  haltedInstallations: [7],
  pausedInstallations: [],
  reconciled: false,
  dryRun: false,
  githubRequests: 0,
  durationMs: 5,
};

describe("what needs a person", () => {
  const view = (extra: Partial<Pick<FleetView, "claims" | "overBudget" | "janitor">>) => ({
    claims: [],
    overBudget: [],
    janitor: null,
    ...extra,
  });
  it.each([
    ["a live claim", view({ claims: [claim(1)] }), []],
    [
      "a holder asking for a person, with its question",
      view({ claims: [claim(2, { state: "waiting", reasons: ["needs-human"], blocker: "which db?" })] }),
      ["needs-human acme/widgets#2 @octo-agent asks: which db?"],
    ],
    [
      "a stalled claim the App asks about on its holder's behalf",
      view({
        claims: [
          claim(5, {
            state: "stalled",
            reasons: ["no-progress", "heartbeat-live", "needs-human"],
            blocker: "x",
          }),
        ],
      }),
      ["needs-human acme/widgets#5 @octo-agent heartbeats without progress (stalled): is it stuck?"],
    ],
    [
      "a stalled claim nobody is asked about",
      view({ claims: [claim(6, { state: "stalled", reasons: ["no-progress"] })] }),
      [],
    ],
    [
      "a claim over its budget label",
      view({ claims: [claim(3, { reasons: ["heartbeat-live", "over-budget"] })] }),
      ["over-budget acme/widgets#3 Over its budget label."],
    ],
    [
      "a lease ended at its budget",
      view({
        overBudget: [
          {
            installationId: 7,
            repo: "acme/widgets",
            issue: 4,
            subject: "acme/widgets#4",
            title: null,
            endedAt: null,
          },
        ],
      }),
      ["over-budget acme/widgets#4 The lease ended at its budget; raise the budget or release the issue."],
    ],
    [
      "an unknown and a conflicted claim, conflicted first",
      view({
        claims: [
          claim(5, { state: "unknown", reasons: ["store-epoch"] }),
          claim(6, { state: "conflicted", reasons: ["foreign-assignee"] }),
        ],
      }),
      [
        "conflicted acme/widgets#6 Conflicted: foreign-assignee.",
        "unknown acme/widgets#5 Claim state unknown (the store lost data since the claim).",
      ],
    ],
    [
      "a halted janitor, before everything else",
      view({ claims: [claim(2, { reasons: ["needs-human"] })], janitor: haltedReport }),
      [
        "janitor-halted  The janitor halted (disruption guard) for installation 7.",
        "needs-human acme/widgets#2 @octo-agent asks for a person.",
      ],
    ],
  ])("%s", (_name, input, expected) => {
    expect(
      attentionItems(input).map((item) => `${item.kind} ${item.subject ?? ""} ${item.why}`),
    ).toStrictEqual(expected);
  });
});

describe("times", () => {
  it.each([
    [41, "41 s ago"],
    [180, "3 min ago"],
    [3 * 3_600, "3 h ago"],
    [3 * 86_400, "3 d ago"],
    [-300, "in 5 min"],
  ])("%i s reads %s", (seconds, text) => {
    expect(ago(seconds)).toBe(text);
  });

  it("shows the absolute time in UTC", () => {
    expect(utcText(Date.parse("2026-11-29T09:58:07.123Z"))).toBe("2026-11-29 09:58:07 UTC");
  });
});

describe("the timeline's range and the page's links", () => {
  it.each([
    ["1h", "1h"],
    ["7d", "7d"],
    [undefined, "24h"],
    ["2h", "24h"],
    ["constructor", "24h"],
  ])("?range=%s is %s", (value, range) => {
    expect(timelineRangeOf(value)).toBe(range);
  });

  it.each([
    [{}, { range: "6h" as const }, "/?range=6h"],
    [
      { repo: "acme/widgets", state: "stale" as const },
      { range: "1h" as const },
      "/?repo=acme%2Fwidgets&state=stale&range=1h",
    ],
    [{ range: "1h" as const }, { range: "24h" as const }, "/"],
  ])("%j changed by %j links %s", (filter, change, href) => {
    expect(pageHref(filter, change)).toBe(href);
  });

  it("names a lane by its subjects and its holder", () => {
    const bar = (subject: string) => ({ subject }) as never;
    const lane = {
      id: "agent:a:codex:s",
      holder: { kind: "agent" as const, login: "a", runtime: "codex", sessionId: "s", host: null },
      bars: [bar("o/r#1"), bar("o/r#2"), bar("o/r#1"), bar("o/r#3"), bar("o/r#4")],
      markers: [],
      rows: 1,
    };
    expect(laneLabel(lane)).toBe("o/r#1, o/r#2, o/r#3 +1 — @a · codex · session s");
  });
});

it("names a halted installation by its account", () => {
  const [halted] = attentionItems({ claims: [], overBudget: [], janitor: haltedReport }, () => "octo-org");
  expect(halted?.why).toBe("The janitor halted (disruption guard) for octo-org.");
});

describe("a subject page's path", () => {
  it.each([
    [["octo", "widgets", "12"], { repo: "octo/widgets", issue: 12 }],
    [["my-org", "repo.js", "2147483648"], { repo: "my-org/repo.js", issue: 2 ** 31 }],
    [["octo", "widgets", "0"], null],
    [["octo", "widgets", "012"], null],
    [["octo", "widgets", "2147483649"], null],
    [["octo", "widgets", "1e3"], null],
    [["octo", "<script>", "1"], null],
    [["octo", "wid gets", "1"], null],
    [["", "widgets", "1"], null],
  ])("%j is %j", ([owner, repo, number], expected) => {
    expect(subjectOfPath(owner!, repo!, number!)).toStrictEqual(expected);
  });
});

describe("installation account names", () => {
  it("reads each installation's login once and keeps it; a failed read shows the id until retried", async () => {
    let now = 0;
    const asked: number[] = [];
    const names = createAccountNames({
      lookup: async (id) => {
        asked.push(id);
        if (id === 2) throw new Error("HTTP 502");
        return `org-${id}`;
      },
      now: () => now,
    });
    const labels = async (ids: number[]) => {
      const known = accountLabels(await names(ids));
      return ids.map(known.of);
    };
    expect(await labels([1, 2, 1])).toStrictEqual(["org-1", "installation 2", "org-1"]);
    expect(await labels([1, 2])).toStrictEqual(["org-1", "installation 2"]);
    expect(asked).toStrictEqual([1, 2]);
    now += 61_000;
    await labels([1, 2]);
    expect(asked).toStrictEqual([1, 2, 2]);
  });

  it("names a Gitea record after its instance without asking GitHub, and logs nothing about it", async () => {
    const gitea = giteaInstallationRecordId(1);
    const asked: number[] = [];
    const failures: number[] = [];
    const names = createAccountNames({
      lookup: async (id) => {
        asked.push(id);
        throw new Error("Not Found: no such installation");
      },
      known: knownAccountNames({ url: "https://git.example.com/forge/", installationId: 1 }),
      now: () => 0,
      onError: (id) => failures.push(id),
    });
    const known = accountLabels(await names([gitea, 9]));
    expect([known.of(gitea), known.of(9)]).toStrictEqual(["git.example.com/forge", "installation 9"]);
    expect(asked).toStrictEqual([9]);
    expect(failures).toStrictEqual([9]);
  });

  it.each([
    ["https://gitea.example.com", "gitea.example.com"],
    ["https://gitea.example.com/", "gitea.example.com"],
    ["http://127.0.0.1:3000", "127.0.0.1:3000"],
    ["https://example.com/git/", "example.com/git"],
  ])("a Gitea instance at %s is named %s", (url, name) => {
    expect(giteaInstanceName(url)).toBe(name);
  });

  it("knows no name for a GitHub installation (GitHub is asked)", () => {
    expect(knownAccountNames(undefined)(42)).toBeNull();
    expect(knownAccountNames({ url: "https://gitea.example.com", installationId: 1 })(42)).toBeNull();
  });

  it("names no Gitea record but the served one, and asks GitHub about none of them", async () => {
    const asked: number[] = [];
    const names = createAccountNames({
      lookup: async (id) => {
        asked.push(id);
        return `account-${id}`;
      },
      known: knownAccountNames({ url: "https://gitea.example.com", installationId: 2 }),
      now: () => 0,
    });
    const [one, two, three] = [1, 2, 3].map(giteaInstallationRecordId);
    const got = await names([one!, two!, three!, 7]);
    expect([...got.entries()]).toStrictEqual([
      [two, "gitea.example.com"],
      [7, "account-7"],
    ]);
    const unserved = await createAccountNames({
      lookup: async (id) => {
        asked.push(id);
        return `account-${id}`;
      },
      known: knownAccountNames(undefined),
      now: () => 0,
    })([one!]);
    expect(unserved.size).toBe(0);
    expect(asked).toStrictEqual([7]);
  });
});
