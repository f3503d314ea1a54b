// The dashboard's timeline layout (lanes, bars, markers from transitions), its GitHub links, and its SVG with hostile text.
import { jsx } from "hono/jsx";
import { describe, expect, it } from "vitest";
import { branchUrl, githubWebUrlOf, issueUrl, parseSubject, pullUrl } from "../src/dashboard/github-links.js";
import {
  layoutTimeline,
  type SubjectHistory,
  type TimelineLayout,
} from "../src/dashboard/timeline/timeline-layout.js";
import { TimelineSvg } from "../src/dashboard/timeline/timeline-svg.js";
import type { Actor, ClaimRecord, Transition } from "../src/domain/claim.js";
import type { RecentDelivery } from "../src/providers/outbox-store.js";

const hour = 3_600_000;
const NOW = Date.parse("2026-11-29T12:00:00Z");
const at = (hoursAgo: number) => NOW - hoursAgo * hour;

const alice: Actor = { kind: "agent", login: "octo-agent", runtime: "codex", sessionId: "s-alice" };
const bob: Actor = { kind: "agent", login: "octo-agent", runtime: "claude-code", sessionId: "s-bob" };
const maintainer: Actor = { kind: "human", login: "maintainer" };
const A = "agent:octo-agent:codex:s-alice";
const B = "agent:octo-agent:claude-code:s-bob";
const M = "human:maintainer";

function record(issue: number, over: Partial<ClaimRecord>): ClaimRecord {
  return {
    installationId: 7,
    repoId: 1001,
    issue,
    repo: "acme/widgets",
    generation: 1,
    state: "active",
    actor: alice,
    taskClass: "author",
    durations: { ttlMs: 30 * 60_000, reclaimAfterMs: hour, heartbeatMs: 5 * 60_000 },
    claimedAt: at(1),
    lastHeartbeatAt: at(0.1),
    appAssigned: true,
    sync: "done",
    ...over,
  };
}

/** Transitions given oldest first, stored newest first as the store answers. */
function subject(issue: number, current: ClaimRecord | null, oldestFirst: Transition[]): SubjectHistory {
  return {
    subject: `acme/widgets#${issue}`,
    repo: "acme/widgets",
    issue,
    record: current,
    transitions: [...oldestFirst].reverse(),
  };
}

/** Each lane as `[id, bars, markers]`, times in hours ago, to read the table at a glance. */
function summary(layout: TimelineLayout) {
  const ago = (t: number) => Math.round(((NOW - t) / hour) * 10) / 10;
  return layout.lanes.map((lane) => [
    lane.id,
    lane.bars.map(
      (b) =>
        `#${b.issue} g${b.generation} ${b.state} ${ago(b.from)}→${b.open ? "now" : ago(b.to)}${b.row ? ` row ${b.row}` : ""}`,
    ),
    lane.markers.map(
      (m) => `${m.kind} #${m.subject.split("#")[1]} ${ago(m.at)}${m.row ? ` row ${m.row}` : ""}`,
    ),
  ]);
}

function delivery(
  event: RecentDelivery["event"],
  issue: number,
  hoursAgo: number,
  sink = "sinkA",
): RecentDelivery {
  return {
    id: `evt_${event}_${issue}_${hoursAgo}.${sink}`,
    event,
    subject: `acme/widgets#${issue}`,
    installationId: 7,
    sinkId: sink,
    result: "sent",
    attempts: 1,
    at: at(hoursAgo),
  };
}

interface Case {
  name: string;
  subjects: SubjectHistory[];
  live?: [string, string, string[]][];
  notifications?: RecentDelivery[];
  maxLanes?: number;
  lanes: ReturnType<typeof summary>;
  lanesLeftOut?: number;
}

const cases: Case[] = [
  {
    name: "a held claim is an open bar coloured by its derived state",
    subjects: [
      subject(1, record(1, { claimedAt: at(2) }), [
        { at: at(2), generation: 1, kind: "claimed", actor: alice },
      ]),
    ],
    live: [["acme/widgets#1", "stale", ["heartbeat-silent"]]],
    lanes: [[A, ["#1 g1 stale 2→now"], []]],
  },
  {
    name: "a takeover ends the old session's bar with a marker and opens the new session's",
    subjects: [
      subject(1, record(1, { generation: 2, actor: bob, claimedAt: at(3) }), [
        { at: at(6), generation: 1, kind: "claimed", actor: alice },
        { at: at(3), generation: 1, kind: "superseded", actor: bob },
        { at: at(3), generation: 2, kind: "claimed", actor: bob },
      ]),
    ],
    live: [["acme/widgets#1", "active", []]],
    lanes: [
      [B, ["#1 g2 active 3→now"], []],
      [A, ["#1 g1 superseded 6→3"], ["takeover #1 3"]],
    ],
  },
  {
    name: "a reap ends the bar with a reap marker; a release and a completion end theirs quietly",
    subjects: [
      subject(1, record(1, { generation: 2, state: "reaped", endedAt: at(4) }), [
        { at: at(8), generation: 1, kind: "claimed", actor: alice },
        { at: at(4), generation: 1, kind: "reaped" },
      ]),
      subject(2, record(2, { state: "completed", endedAt: at(1) }), [
        { at: at(5), generation: 1, kind: "claimed", actor: bob },
        { at: at(1), generation: 1, kind: "completed", actor: bob },
      ]),
      subject(3, record(3, { state: "released", endedAt: at(9) }), [
        { at: at(10), generation: 1, kind: "claimed", actor: alice },
        { at: at(9), generation: 1, kind: "released", actor: alice },
      ]),
    ],
    lanes: [
      [B, ["#2 g1 completed 5→1"], []],
      [A, ["#3 g1 released 10→9", "#1 g1 reaped 8→4"], ["reap #1 4"]],
    ],
  },
  {
    name: "/reclaim supersedes the agent (one marker) and opens the person's own lane",
    subjects: [
      subject(1, record(1, { generation: 2, state: "human", actor: maintainer, claimedAt: at(2) }), [
        { at: at(5), generation: 1, kind: "claimed", actor: alice },
        { at: at(2), generation: 1, kind: "superseded", actor: maintainer },
        { at: at(2), generation: 2, kind: "claimed", actor: maintainer },
      ]),
    ],
    live: [["acme/widgets#1", "human", []]],
    lanes: [
      [M, ["#1 g2 human 2→now"], []],
      [A, ["#1 g1 superseded 5→2"], ["reclaim #1 2"]],
    ],
  },
  {
    name: "/reclaim release on a subject nobody held is a marker on the person's lane",
    subjects: [
      subject(4, record(4, { state: "released", actor: maintainer, endedAt: at(1) }), [
        { at: at(1), generation: 3, kind: "released", actor: maintainer, note: "abandoned" },
      ]),
    ],
    lanes: [[M, [], ["reclaim #4 1"]]],
  },
  {
    name: "a rolled-back claim never held the subject; a re-claim keeps its bar",
    subjects: [
      subject(1, record(1, { generation: 1, claimedAt: at(3) }), [
        { at: at(3), generation: 1, kind: "claimed", actor: alice },
        { at: at(2), generation: 1, kind: "reclaimed", actor: alice },
        { at: at(1), generation: 2, kind: "claimed", actor: bob },
        { at: at(1), generation: 2, kind: "rolled-back" },
      ]),
    ],
    lanes: [[A, ["#1 g1 active 3→now"], []]],
  },
  {
    name: "the window clips a long claim, drops one that ended before it, and a trimmed history uses the record",
    subjects: [
      subject(1, record(1, { claimedAt: at(30) }), []),
      subject(2, record(2, { state: "released", endedAt: at(26) }), [
        { at: at(28), generation: 1, kind: "claimed", actor: bob },
        { at: at(26), generation: 1, kind: "released", actor: bob },
      ]),
    ],
    lanes: [[A, ["#1 g1 active 24→now"], []]],
  },
  {
    name: "needs-human: from the held claim's reasons, and from notifications once per event across sinks",
    subjects: [
      subject(1, record(1, { claimedAt: at(4), lastHeartbeatAt: at(0.5), blocker: "which API?" }), [
        { at: at(4), generation: 1, kind: "claimed", actor: alice },
      ]),
      subject(2, record(2, { state: "released", actor: bob, endedAt: at(2) }), [
        { at: at(6), generation: 1, kind: "claimed", actor: bob },
        { at: at(2), generation: 1, kind: "released", actor: bob },
      ]),
    ],
    live: [["acme/widgets#1", "waiting", ["needs-human", "heartbeat-recent"]]],
    notifications: [
      delivery("needs-human", 2, 3, "sinkA"),
      delivery("needs-human", 2, 3, "sinkB"),
      delivery("takeover", 2, 3),
      delivery("budget-warn", 2, 2.5),
    ],
    lanes: [
      [A, ["#1 g1 waiting 4→now"], ["needs-human #1 0.5"]],
      [B, ["#1 g1 released 6→2".replace("#1", "#2")], ["needs-human #2 3", "budget #2 2.5"]],
    ],
  },
  {
    name: "a release for the budget is a budget marker, and its notification adds no second one",
    subjects: [
      subject(
        1,
        {
          ...record(1, { state: "released", endedAt: at(1), outcome: "abandoned" }),
          budgetExhausted: true,
        } as ClaimRecord,
        [
          { at: at(3), generation: 1, kind: "claimed", actor: alice },
          { at: at(1), generation: 1, kind: "released", actor: alice },
        ],
      ),
    ],
    notifications: [delivery("budget-exhausted", 1, 0.99)],
    lanes: [[A, ["#1 g1 released 3→1"], ["budget #1 1"]]],
  },
  {
    name: "claims a session holds at once take rows of their own, and a marker sits on its claim's row",
    subjects: [
      subject(1, record(1, { claimedAt: at(6) }), [
        { at: at(6), generation: 1, kind: "claimed", actor: alice },
      ]),
      subject(2, record(2, { state: "reaped", endedAt: at(2) }), [
        { at: at(5), generation: 1, kind: "claimed", actor: alice },
        { at: at(2), generation: 1, kind: "reaped" },
      ]),
      subject(3, record(3, { claimedAt: at(1) }), [
        { at: at(1), generation: 1, kind: "claimed", actor: alice },
      ]),
    ],
    live: [
      ["acme/widgets#1", "active", []],
      ["acme/widgets#3", "active", []],
    ],
    lanes: [
      [A, ["#1 g1 active 6→now", "#2 g1 reaped 5→2 row 1", "#3 g1 active 1→now row 1"], ["reap #2 2 row 1"]],
    ],
  },
  {
    name: "lanes beyond the cap are the least recently active, counted as left out",
    subjects: [
      subject(1, record(1, { claimedAt: at(3) }), []),
      subject(2, record(2, { actor: bob, state: "released", claimedAt: at(5), endedAt: at(4) }), [
        { at: at(5), generation: 1, kind: "claimed", actor: bob },
        { at: at(4), generation: 1, kind: "released", actor: bob },
      ]),
    ],
    maxLanes: 1,
    lanes: [[A, ["#1 g1 active 3→now"], []]],
    lanesLeftOut: 1,
  },
];

describe("timeline layout", () => {
  it.each(cases)("$name", (c) => {
    const layout = layoutTimeline({
      subjects: c.subjects,
      live: new Map(
        (c.live ?? []).map(([s, state, reasons]) => [s, { state: state as "active", reasons }] as const),
      ),
      notifications: c.notifications ?? [],
      now: NOW,
      windowMs: 24 * hour,
      maxLanes: c.maxLanes ?? 24,
    });
    expect(summary(layout)).toStrictEqual(c.lanes);
    expect(layout.lanesLeftOut).toBe(c.lanesLeftOut ?? 0);
    expect(layout.from).toBe(at(24));
  });
});

describe("links to GitHub", () => {
  it.each([
    [undefined, "https://github.com"],
    ["https://api.github.com", "https://github.com"],
    ["https://api.github.com/", "https://github.com"],
    ["https://ghe.example.com/api/v3", "https://ghe.example.com"],
    ["http://ghe.internal:8080/api/v3/", "http://ghe.internal:8080"],
    ["http://127.0.0.1:4010", "http://127.0.0.1:4010"],
    ["javascript:alert(1)", "https://github.com"],
  ])("the web base of %s is %s", (rest, web) => {
    expect(githubWebUrlOf(rest)).toBe(web);
  });

  it("builds issue, pull and branch links with every part encoded", () => {
    const web = { forge: "github" as const, url: "https://ghe.example.com" };
    expect(issueUrl(web, "acme/widgets", 12)).toBe("https://ghe.example.com/acme/widgets/issues/12");
    expect(pullUrl(web, "acme/widgets", 34)).toBe("https://ghe.example.com/acme/widgets/pull/34");
    expect(branchUrl(web, "acme/widgets", "agent/s-1/12-fix?x#y")).toBe(
      "https://ghe.example.com/acme/widgets/tree/agent/s-1/12-fix%3Fx%23y",
    );
    expect(parseSubject("acme/widgets#12")).toStrictEqual({ repo: "acme/widgets", issue: 12 });
    expect(parseSubject("<script>#1")).toBeNull();
  });
});

describe("timeline SVG", () => {
  it("renders lanes, bars and markers with hostile names as inert text", () => {
    const hostile: Actor = {
      kind: "agent",
      login: "octo-agent",
      runtime: "<script>alert('runtime')</script>",
      sessionId: `@org/team"><img src=x onerror=alert(1)>`,
    };
    const layout = layoutTimeline({
      subjects: [
        subject(1, record(1, { actor: hostile, generation: 2, claimedAt: at(2) }), [
          { at: at(5), generation: 1, kind: "claimed", actor: alice },
          { at: at(2), generation: 1, kind: "superseded", actor: hostile },
          { at: at(2), generation: 2, kind: "claimed", actor: hostile },
        ]),
      ],
      live: new Map([["acme/widgets#1", { state: "active", reasons: [] }]]),
      notifications: [],
      now: NOW,
      windowMs: 24 * hour,
      maxLanes: 24,
    });
    const svg = String(jsx(TimelineSvg, { layout, stateColours: { active: "#1a7f37" } }));
    expect(svg.match(/<g data-lane=/g)).toHaveLength(2);
    expect(svg.match(/<rect data-claim="acme\/widgets#1"/g)).toHaveLength(2);
    expect(svg).toContain('data-state="active"');
    expect(svg).toContain('data-state="superseded"');
    expect(svg.match(/data-marker="takeover"/g)).toHaveLength(1);
    expect(svg).toContain('<a href="/subjects/acme/widgets/1">');
    expect(svg).not.toContain("<script>");
    expect(svg).not.toContain("<img");
    expect(svg).toContain("&lt;script&gt;alert(&#39;runtime&#39;)&lt;/script&gt;");
    expect(svg).toContain("@org/team&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
  });

  it("labels a 7-day window by day and names the range", () => {
    const layout = layoutTimeline({
      subjects: [subject(1, record(1, { claimedAt: NOW - 3 * 24 * hour }), [])],
      live: new Map([["acme/widgets#1", { state: "active", reasons: [] }]]),
      notifications: [],
      now: NOW,
      windowMs: 7 * 24 * hour,
      maxLanes: 24,
    });
    const svg = String(jsx(TimelineSvg, { layout, stateColours: { active: "#1a7f37" } }));
    expect(svg).toContain('aria-label="Claims of the last 7 days: 1 lane(s)"');
    expect(
      [...svg.matchAll(/text-anchor="[a-z]+">([^<]+)<\/text>/g)].map((m) => m[1]).slice(0, 7),
    ).toStrictEqual(["11-23", "11-24", "11-25", "11-26", "11-27", "11-28", "11-29"]);
  });
});
