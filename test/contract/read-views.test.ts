// The core's read views have the wire shapes the client parses (src/contract): checked by the compiler and at run time.
import { describe, expect, expectTypeOf, it } from "vitest";
import { defaultRepoConfig } from "../../src/config/repo-config.js";
import { ClaimRowSchema, type SubjectResponseSchema } from "../../src/contract/api-responses.js";
import { ClaimRecord } from "../../src/domain/claim.js";
import { type InventoryRow, inventoryRow, type SubjectView } from "../../src/lease/reads/lease-reads.js";

const now = Date.parse("2026-12-01T12:00:00Z");
const record: ClaimRecord = ClaimRecord.parse({
  installationId: 1,
  repoId: 2,
  repo: "acme/widgets",
  issue: 7,
  title: "Fix the flux",
  generation: 3,
  state: "active",
  actor: { kind: "agent", login: "bot-user", sessionId: "s-1", runtime: "codex" },
  taskClass: "author",
  branch: "agent/7-fix-the-flux",
  durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
  claimedAt: now - 60_000,
  lastHeartbeatAt: now - 5_000,
  tokenDigest: "d".repeat(64),
  appAssigned: true,
  sync: "done",
});

describe("read views", () => {
  it("have exactly the fields of the contract's claim row and subject answer", () => {
    // Checked by the compiler (npm run typecheck): a field on one side only stops it compiling.
    expectTypeOf<keyof InventoryRow>().toEqualTypeOf<keyof typeof ClaimRowSchema.shape>();
    expectTypeOf<keyof SubjectView>().toEqualTypeOf<keyof typeof SubjectResponseSchema.shape>();
  });

  it("an inventory row built from a record alone parses as the contract's claim row, field for field", () => {
    const row = inventoryRow(null, record, 0, defaultRepoConfig, now);
    const parsed = ClaimRowSchema.parse(row);
    expect(parsed).toMatchObject({
      subject: "acme/widgets#7",
      title: "Fix the flux",
      generation: 3,
      branch: "agent/7-fix-the-flux",
      claimedAt: "2026-12-01T11:59:00.000Z",
      lastHeartbeatAt: "2026-12-01T11:59:55.000Z",
      claimAgeSeconds: 60,
      assignees: null,
      linkedPullRequests: [],
    });
    expect(Object.keys(row)).not.toContain("overlaps");
  });
});
