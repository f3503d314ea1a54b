// Request and answer bodies for the OpenAPI document's examples: the README's curl examples, with placeholder secrets only.

const actor = {
  kind: "agent",
  login: "octo-agent",
  runtime: "claude-code",
  sessionId: "5f0c",
  host: "build-7",
};

const lease = {
  id: "41.1296269.12.3",
  subject: "octo/app#12",
  generation: 3,
  token: "clh_example",
  taskClass: "author",
  branch: "agent/5f0c/12-fix-parser",
  ttlSeconds: 1800,
  heartbeatIntervalSeconds: 300,
  expiresAt: "2026-11-29T10:30:00.000Z",
};

const picked = { issue: 12, rank: 1, reasons: ["priority:p0", "oldest"] };

const row = {
  subject: "octo/app#12",
  title: "Parser drops trailing commas",
  state: "stale",
  reasons: ["heartbeat-missed"],
  actor,
  generation: 3,
  taskClass: "author",
  branch: "agent/5f0c/12-fix-parser",
  claimedAt: "2026-11-29T09:00:00.000Z",
  lastHeartbeatAt: "2026-11-29T09:40:00.000Z",
  expiresAt: "2026-11-29T10:10:00.000Z",
  phase: "testing",
  blocker: null,
  spendUsd: 1.25,
  linkedPullRequests: [31],
  claimAgeSeconds: 3600,
  assignees: ["octo-agent"],
};

export const examples = {
  claimRequest: {
    repo: "octo/app",
    issue: 12,
    actor: { runtime: "claude-code", sessionId: "5f0c", host: "build-7" },
    taskClass: "author",
  },
  claimCreated: { lease, resume: null, overlaps: [] },
  claimRenewed: { lease: { ...lease, token: "clh_example_rotated" }, resume: null, overlaps: [] },
  takeoverPending: { status: "takeover_pending", retryAfterSeconds: 300, incumbent: actor },
  nextRequest: {
    repo: "octo/app",
    actor: { runtime: "claude-code", sessionId: "5f0c" },
    labels: ["agent-ready"],
    capabilities: ["gpu"],
  },
  nextCreated: { lease, resume: null, overlaps: [], picked },
  nextRenewed: { lease: { ...lease, token: "clh_example_rotated" }, resume: null, overlaps: [], picked },
  nextTakeoverPending: {
    status: "takeover_pending",
    retryAfterSeconds: 300,
    incumbent: { ...actor, sessionId: "77b2", host: "build-3" },
    picked: { issue: 7, rank: 1, reasons: ["takeover"] },
  },
  heartbeatRequest: { phase: "testing" },
  heartbeat: { generation: 3, expiresAt: "2026-11-29T10:35:00.000Z", state: "active" },
  releaseRequest: { outcome: "handoff", note: "parser done, docs left" },
  release: { released: true, outcome: "handoff", generation: 3 },
  attestRequest: { sha: "9fceb02d0ae598e95dc970b74767f19372d61af8" },
  attest: { attested: true, sha: "9fceb02d0ae598e95dc970b74767f19372d61af8", generation: 3 },
  verify: { holder: true, generation: 3, state: "active", expiresAt: "2026-11-29T10:35:00.000Z" },
  inventory: { claims: [row], truncated: false },
  subject: {
    ...row,
    history: [
      { at: "2026-11-29T09:00:00.000Z", generation: 3, kind: "claimed", actor },
      { at: "2026-11-29T09:41:00.000Z", generation: 3, kind: "stale", actor: null, note: "heartbeat-missed" },
    ],
    heartbeatGapsMs: [300_000, 298_500, 301_200],
  },
  queue: {
    queue: [
      { issue: 12, title: "Parser drops trailing commas", rank: 1, reasons: ["priority:p0", "oldest"] },
    ],
    skipped: [
      { issue: 7, reason: "blocked" },
      { issue: 9, reason: "missingCapability", missing: ["gpu"] },
    ],
    truncated: false,
  },
  janitorRequest: { dryRun: true },
  sweepReport: {
    at: "2026-11-29T10:00:00.000Z",
    installations: 1,
    examined: 3,
    actions: [{ subject: "octo/app#12", action: "reap", reason: "heartbeat-expired" }],
    skipped: 2,
    halted: false,
    haltedInstallations: [],
    pausedInstallations: [],
    reconciled: true,
    dryRun: true,
    githubRequests: 4,
    durationMs: 180,
  },
  openapi: { openapi: "3.1.0", info: { title: "claim-hold HTTP API", version: "0.1.0" } },
  health: { status: "ok" },
  ready: { status: "ready", checks: { store: "ok", credentials: "ok", janitor: "ok" } },
  notReady: { status: "not_ready", checks: { store: "unreachable", credentials: "ok", janitor: "ok" } },
  metrics: [
    "# HELP claim_hold_transitions_total Claim transitions made in the store, by kind (claimed, reclaimed, released, reaped, …).",
    "# TYPE claim_hold_transitions_total counter",
    'claim_hold_transitions_total{kind="claimed"} 12',
    "",
  ].join("\n"),
} as const;
