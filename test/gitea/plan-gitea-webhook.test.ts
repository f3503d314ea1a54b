// planGiteaWebhook as a table: a repository's hooks in, the writes that leave exactly one App hook as wanted out.
import { describe, expect, it } from "vitest";
import { GiteaHook } from "../../src/providers/gitea/gitea-schemas.js";
import {
  giteaHookEvents,
  hookUrlOf,
  planGiteaWebhook,
  secretFingerprint,
} from "../../src/providers/gitea/plan-gitea-webhook.js";

const want = { endpoint: "https://claim-hold.example.com/api/gitea/webhooks", secret: "s".repeat(64) };
const url = hookUrlOf(want);
/** What Gitea answers for a hook created with `giteaHookEvents`: each group expanded. */
const expanded = [
  "issues",
  "issue_assign",
  "issue_label",
  "issue_milestone",
  "issue_comment",
  "push",
  "pull_request",
  "pull_request_sync",
  "status",
];
const hook = (
  id: number,
  patch: Partial<GiteaHook> = {},
  config: Record<string, string> = {},
): GiteaHook => ({
  id,
  type: "gitea",
  active: true,
  events: expanded,
  config: { url, content_type: "json", ...config },
  ...patch,
});
const option = {
  active: true,
  events: [...giteaHookEvents],
  branch_filter: "*",
  config: { url, content_type: "json", secret: want.secret },
};

describe("planGiteaWebhook", () => {
  it.each<[string, GiteaHook[], ReturnType<typeof planGiteaWebhook>]>([
    ["no hook: create one", [], [{ kind: "create", hook: { type: "gitea", ...option } }]],
    [
      "only other hooks (another URL, or a Slack hook at ours): create one, touch none",
      [
        hook(1, {}, { url: "https://ci.example.com/hook" }),
        hook(2, { type: "slack" }, { url: want.endpoint }),
      ],
      [{ kind: "create", hook: { type: "gitea", ...option } }],
    ],
    ["the App's hook as wanted: nothing", [hook(3)], []],
    ["a branch filter of every branch: nothing", [hook(3, { branch_filter: "*" })], []],
    ["an empty branch filter (every branch): nothing", [hook(3, { branch_filter: "" })], []],
    [
      "a branch filter narrowing the deliveries (as Gitea answers it): edited back to every branch",
      [hook(3, { branch_filter: "main", events: [...expanded, "issue_milestone"] })],
      [{ kind: "edit", id: 3, hook: option, drift: ["branch_filter"] }],
    ],
    [
      "the status event missing (a hook of an older App): edited",
      [hook(3, { events: expanded.filter((event) => event !== "status") })],
      [{ kind: "edit", id: 3, hook: option, drift: ["events"] }],
    ],
    ["a Forgejo-type hook as wanted: nothing", [hook(3, { type: "forgejo" })], []],
    [
      "events in another order, and more than wanted: nothing",
      [hook(3, { events: [...expanded].reverse().concat("release") })],
      [],
    ],
    [
      "an event missing: edited with the whole event list",
      [hook(4, { events: ["push", "issues"] })],
      [{ kind: "edit", id: 4, hook: option, drift: ["events"] }],
    ],
    [
      "inactive and sent as a form: edited",
      [hook(5, { active: false }, { content_type: "form" })],
      [{ kind: "edit", id: 5, hook: option, drift: ["active", "content_type"] }],
    ],
    [
      "made by hand (no fingerprint) or with the secret of an old token: its secret re-written",
      [hook(6, {}, { url: want.endpoint })],
      [{ kind: "edit", id: 6, hook: option, drift: ["secret"] }],
    ],
    [
      "an old fingerprint and a trailing slash: still the App's, re-written",
      [hook(7, {}, { url: `${want.endpoint}/?fingerprint=0123456789abcdef` })],
      [{ kind: "edit", id: 7, hook: option, drift: ["secret"] }],
    ],
    [
      "two App hooks: the one with this secret kept, the other deleted",
      [hook(8, {}, { url: want.endpoint }), hook(9)],
      [{ kind: "delete", id: 8 }],
    ],
    [
      "two App hooks, the one with this secret inactive: it is edited, the other deleted",
      [hook(11, { active: false }), hook(10, { events: ["push"] }, { url: want.endpoint })],
      [
        { kind: "edit", id: 11, hook: option, drift: ["active"] },
        { kind: "delete", id: 10 },
      ],
    ],
    [
      "two App hooks, neither with this secret: the oldest edited, the other deleted",
      [
        hook(11, { active: false }, { url: want.endpoint }),
        hook(10, { events: ["push"] }, { url: want.endpoint }),
      ],
      [
        { kind: "edit", id: 10, hook: option, drift: ["events", "secret"] },
        { kind: "delete", id: 11 },
      ],
    ],
  ])("%s", (_, hooks, actions) => {
    expect(planGiteaWebhook(hooks, want)).toEqual(actions);
  });

  it("fingerprints the secret one-way in the hook's URL: another secret, another URL, the secret never in it", () => {
    expect(url).toBe(`${want.endpoint}?fingerprint=${secretFingerprint(want.secret)}`);
    expect(secretFingerprint(want.secret)).toMatch(/^[0-9a-f]{16}$/);
    expect(hookUrlOf({ ...want, secret: "t".repeat(64) })).not.toBe(url);
    expect(url).not.toContain(want.secret);
  });

  it("reads the branch filter of a hook as Gitea answers it, and plans its repair", () => {
    const asGiteaAnswers = {
      id: 7,
      type: "gitea",
      active: true,
      events: [...expanded, "issue_milestone"],
      config: { url, content_type: "json" },
      branch_filter: "main",
      authorization_header: "",
      created_at: "2026-12-01T00:00:00Z",
      updated_at: "2026-12-01T00:00:00Z",
    };
    const read = GiteaHook.parse(asGiteaAnswers);
    expect(read.branch_filter).toBe("main");
    expect(planGiteaWebhook([read], want)).toEqual([
      { kind: "edit", id: 7, hook: option, drift: ["branch_filter"] },
    ]);
  });
});
