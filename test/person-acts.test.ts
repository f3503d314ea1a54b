// Who may act as a person, on the handlers GitHub's and Gitea's deliveries both run: actor kinds × surfaces, on real payload shapes, memory stores and the real fleet logins.
import pino from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import { defaultRepoConfig, type RepoConfig } from "../src/config/repo-config.js";
import type { SubjectKey } from "../src/domain/claim.js";
import { needsHumanAnswered } from "../src/handlers/needs-human-answered.js";
import { needsHumanCleared } from "../src/handlers/needs-human-cleared.js";
import { revokeOnRemoval } from "../src/handlers/revoke-on-removal.js";
import type { SyncDeps } from "../src/handlers/sync-deps.js";
import { FleetLogins } from "../src/lease/fleet-logins.js";
import { MemoryLeaseEventBus } from "../src/providers/memory/memory-lease-event-bus.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import type { Stores } from "../src/providers/stores.js";
import { loadFixture } from "./support/fixtures.js";

const installationId = 957387;
const repoId = 186853002;
const repo = "Codertocat/Hello-World";
const now = Date.parse("2026-12-01T10:00:00Z");
const config: RepoConfig = {
  ...defaultRepoConfig,
  agents: { ...defaultRepoConfig.agents, logins: ["ci-runner"] },
};
const asking: SubjectKey = { installationId, repoId, issue: 1 };
const tripped: SubjectKey = { installationId, repoId, issue: 2 };

let stores: Stores;
let deps: SyncDeps & { fleet: FleetLogins; leaseEvents: MemoryLeaseEventBus };

async function claim(key: SubjectKey) {
  const outcome = await stores.claims.claim({
    key,
    repo,
    actor: { kind: "agent", login: "octo-agent", sessionId: `s${key.issue}` },
    taskClass: "author",
    durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
    branch: `agent/s${key.issue}/${key.issue}-work`,
    tokenDigest: "a".repeat(64),
    takeover: false,
    now,
    minGeneration: 0,
    appAssigned: true,
    issueNodeId: `I_${key.issue}`,
    assigneeNodeId: "U_agent",
    caps: { perSession: 5, perLogin: 50 },
  });
  if (outcome.kind !== "created") throw new Error(outcome.kind);
  return outcome.record;
}

beforeEach(async () => {
  stores = createMemoryStores();
  deps = {
    stores,
    assignments: {} as SyncDeps["assignments"],
    configs: { load: async () => config, peek: () => config },
    now: () => now,
    events: {} as SyncDeps["events"],
    fleet: new FleetLogins(stores.fleetLogins, () => now),
    leaseEvents: new MemoryLeaseEventBus(),
  };
  // A login that held an agent claim elsewhere in the installation: learned, in the store.
  await stores.fleetLogins.rememberFleetLogin(installationId, "other-agent");
  // The live claim asks for a person (its needs-human ask stands).
  const live = await claim(asking);
  const asked = await stores.claims.heartbeat({
    key: asking,
    generation: live.generation,
    tokenDigest: "a".repeat(64),
    now,
    needsHuman: true,
    blocker: "which database?",
    phaseEditEveryMs: 60_000,
  });
  if (asked.kind !== "ok") throw new Error(asked.kind);
  // Another issue's attempt failed: its breaker holds an attempt.
  const failed = await claim(tripped);
  await stores.claims.release({
    key: tripped,
    generation: failed.generation,
    tokenDigest: "a".repeat(64),
    now,
    outcome: "failed",
  });
});

const sender = (login: string, type: "User" | "Bot") => ({
  ...loadFixture("issues.unassigned-by-a-human").sender,
  login,
  type,
});

/** Each surface: whether the handler would act for a delivery sent by `by`. */
const surfaces = {
  "revoke: the claimed label taken off": async (by: ReturnType<typeof sender>) => {
    const payload = {
      ...loadFixture("issues.labeled-by-a-human"),
      action: "unlabeled",
      sender: by,
    } as never;
    return (await revokeOnRemoval(deps).decide(payload)) !== null;
  },
  "revoke: the App-made assignment taken off": async (by: ReturnType<typeof sender>) => {
    const payload = { ...loadFixture("issues.unassigned-by-a-human"), sender: by } as never;
    return (await revokeOnRemoval(deps).decide(payload)) !== null;
  },
  "needs-human: a reply": async (by: ReturnType<typeof sender>) => {
    const fixture = loadFixture("issue_comment.created-reclaim");
    const payload = {
      ...fixture,
      comment: { ...fixture.comment, body: "use Postgres", user: by },
      sender: by,
    } as never;
    return (await needsHumanAnswered(deps).decide(payload)) !== null;
  },
  "needs-human: the label taken off": async (by: ReturnType<typeof sender>) => {
    const fixture = loadFixture("issues.labeled-by-a-human");
    const label = { ...fixture.label, name: "agent:needs-human" };
    const payload = { ...fixture, action: "unlabeled", label, sender: by } as never;
    return (await needsHumanAnswered(deps).decide(payload)) !== null;
  },
  "breaker: the needs-human label taken off": async (by: ReturnType<typeof sender>) => {
    const fixture = loadFixture("issues.labeled-by-a-human");
    const payload = {
      ...fixture,
      action: "unlabeled",
      issue: { ...fixture.issue, number: tripped.issue },
      label: { ...fixture.label, name: "agent:needs-human" },
      sender: by,
    } as never;
    return (await needsHumanCleared(deps).decide(payload)) !== null;
  },
};

describe("only a person's act counts, on every surface", () => {
  const actors = [
    ["a person with write access", sender("Codertocat", "User"), true],
    ["the holder's own login acting as a user", sender("octo-agent", "User"), false],
    ["a login the config lists in agents.logins", sender("ci-runner", "User"), false],
    ["a login learned from an earlier agent claim", sender("other-agent", "User"), false],
    ["an App's Bot account", sender("claim-hold[bot]", "Bot"), false],
  ] as const;
  const cases = Object.keys(surfaces).flatMap((surface) =>
    actors.map(([who, by, acts]) => [surface, who, by, acts] as const),
  );
  it.each(cases)("%s, by %s", async (surface, _who, by, acts) => {
    expect(await surfaces[surface as keyof typeof surfaces](by)).toBe(acts);
  });
});

describe("a fleet login's act that only a person's counts for is logged as ignored", () => {
  const logged = () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    return { lines, log };
  };
  it.each([
    ["revoke: the claimed label taken off", revokeOnRemoval, "issues.labeled-by-a-human"],
    ["needs-human: a reply", needsHumanAnswered, "issue_comment.created-reclaim"],
  ] as const)(
    "%s by a learned fleet login: one info line naming it",
    async (surface, handler, fixtureName) => {
      const { lines, log } = logged();
      const by = sender("other-agent", "User");
      const fixture = loadFixture(fixtureName) as Record<string, unknown> & { comment?: object };
      const payload = (
        fixture.comment
          ? { ...fixture, comment: { ...fixture.comment, body: "use Postgres", user: by }, sender: by }
          : { ...fixture, action: "unlabeled", sender: by }
      ) as never;
      expect(
        await (handler(deps) as { decide: (p: never, l: typeof log) => unknown }).decide(payload, log),
      ).toBeNull();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 30, login: "other-agent" });
      expect(String(lines[0]?.msg)).toContain("is a fleet login");
      expect(surface).toBeTruthy();
    },
  );
  it("a person's act logs nothing of the kind", async () => {
    const { lines, log } = logged();
    const by = sender("Codertocat", "User");
    const payload = { ...loadFixture("issues.labeled-by-a-human"), action: "unlabeled", sender: by } as never;
    await revokeOnRemoval(deps).decide(payload, log);
    expect(lines.filter((line) => String(line.msg).includes("fleet login"))).toEqual([]);
  });
});
