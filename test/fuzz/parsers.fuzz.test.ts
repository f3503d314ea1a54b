// Property-based fuzzing (fast-check, seeds printed): the parsers of untrusted text never throw, reject what they should, and round-trip.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { parseRepoConfig } from "../../src/config/repo-config.js";
import { type ClaimRecord, leaseIdOf, parseLeaseId } from "../../src/domain/claim.js";
import { markerStates, parseClaimMarker, renderClaimComment } from "../../src/domain/claim-marker.js";
import { parseBudgetCommand } from "../../src/handlers/budget-decision.js";
import {
  AttestBody,
  ClaimBody,
  HeartbeatBody,
  InventoryQuery,
  JanitorRunBody,
  ReleaseBody,
} from "../../src/http/api-schemas.js";
import { parseReclaimCommand } from "../../src/lease/reclaim-command.js";

const runs = Number(process.env.FUZZ_RUNS ?? 3000);
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const params = { numRuns: runs, seed };
console.log(`fuzz seed ${seed} (FUZZ_SEED=${seed} reproduces it), ${runs} runs per property`);

/** Any JSON-ish value, prototype-pollution keys included. */
const hostileKey = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty");
const anyValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.jsonValue(),
    fc.string({ unit: "binary" }),
    fc.dictionary(fc.oneof(fc.string(), hostileKey), tie("value"), { maxKeys: 6 }),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.constantFrom(null, undefined, Number.NaN, Infinity, -0, 2 ** 53, -1, 1e308),
  ),
})).value;

const login = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/);
const text = fc.string({ minLength: 1, maxLength: 100, unit: "binary" });
const actor = fc.record(
  {
    kind: fc.constantFrom("agent" as const, "human" as const),
    login,
    runtime: text,
    sessionId: text,
    host: text,
  },
  { requiredKeys: ["kind", "login"] },
);
const positive = fc.integer({ min: 1, max: 2_147_483_647 });
const seconds = fc.integer({ min: 1, max: 172_800 });
/** Valid records as the store holds them (durations in whole seconds, as the marker keeps them). */
const claimRecord: fc.Arbitrary<ClaimRecord> = fc
  .record({
    installationId: positive,
    repoId: positive,
    issue: positive,
    owner: fc.stringMatching(/^[\w.-]{1,20}$/),
    name: fc.stringMatching(/^[\w.-]{1,20}$/),
    generation: positive,
    actor,
    taskClass: fc.constantFrom(
      "author" as const,
      "reviewer" as const,
      "merger" as const,
      "conflict-fix" as const,
    ),
    branch: fc.option(fc.string({ minLength: 1, maxLength: 255 }), { nil: undefined }),
    ttl: seconds,
    reclaimAfter: seconds,
    heartbeat: seconds,
    claimedAt: fc.integer({ min: 0, max: 8_640_000_000_000 }),
    tokenDigest: fc.option(fc.stringMatching(/^[0-9a-f]{64}$/), { nil: undefined }),
    appAssigned: fc.boolean(),
    supersedes: fc.option(positive, { nil: undefined }),
    artifacts: fc.option(fc.string({ minLength: 1, maxLength: 500 }), { nil: undefined }),
    phase: fc.option(text, { nil: undefined }),
  })
  .map((r) => ({
    installationId: r.installationId,
    repoId: r.repoId,
    issue: r.issue,
    repo: `${r.owner}/${r.name}`,
    generation: r.generation,
    state: "active" as const,
    actor: r.actor,
    taskClass: r.taskClass,
    ...(r.branch !== undefined ? { branch: r.branch } : {}),
    durations: {
      ttlMs: r.ttl * 1000,
      reclaimAfterMs: r.reclaimAfter * 1000,
      heartbeatMs: r.heartbeat * 1000,
    },
    claimedAt: r.claimedAt,
    lastHeartbeatAt: r.claimedAt,
    ...(r.tokenDigest !== undefined ? { tokenDigest: r.tokenDigest } : {}),
    appAssigned: r.appAssigned,
    sync: "done" as const,
    ...(r.supersedes !== undefined ? { supersedes: r.supersedes } : {}),
    ...(r.artifacts !== undefined ? { artifacts: r.artifacts } : {}),
    ...(r.phase !== undefined ? { phase: r.phase } : {}),
  }));

describe("the claim-comment marker", () => {
  it("parses any comment body without throwing, and accepts only strict markers", () => {
    const body = fc.oneof(
      fc.string({ unit: "binary" }),
      anyValue.map((v) => `text <!-- claim-hold:v1 ${JSON.stringify(v) ?? "x"} --> tail`),
      fc.string().map((s) => `<!-- claim-hold:v1 ${s} -->`),
      anyValue,
    );
    fc.assert(
      fc.property(body, (input) => {
        const result = parseClaimMarker(input);
        expect(["none", "marker", "rejected"]).toContain(result.kind);
        if (result.kind === "marker") {
          expect(result.marker.generation).toBeGreaterThan(0);
          expect(markerStates).toContain(result.marker.state);
          expect(Object.getPrototypeOf(result.marker)).toBe(Object.prototype);
        }
      }),
      params,
    );
  });

  it("rejects tampered markers: unknown fields, prototype keys, bad digests, non-positive generations", () => {
    const tampered = fc.oneof(
      hostileKey.map((k) => `{"${k}":{"polluted":true},"subject":"o/r#1","generation":1}`),
      fc.constant('{"subject":"o/r#1","generation":0,"state":"active"}'),
      fc.constant('{"subject":"o/r#1","generation":1,"state":"active","tokenDigest":"ZZ"}'),
      fc.string({ unit: "binary" }).map((s) => `{"subject":${JSON.stringify(s)},"generation":1}`),
    );
    fc.assert(
      fc.property(tampered, (json) => {
        expect(parseClaimMarker(`<!-- claim-hold:v1 ${json} -->`).kind).toBe("rejected");
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      params,
    );
  });

  it("render → parse is the identity on the marker of any valid record, in every state", () => {
    fc.assert(
      fc.property(claimRecord, fc.constantFrom(...markerStates), (record, state) => {
        const parsed = parseClaimMarker(renderClaimComment(record, state));
        expect(parsed.kind).toBe("marker");
        if (parsed.kind !== "marker") return;
        const m = parsed.marker;
        expect(m).toMatchObject({
          subject: `${record.repo}#${record.issue}`,
          generation: record.generation,
          state,
          actor: record.actor,
          taskClass: record.taskClass,
          claimedAt: new Date(record.claimedAt).toISOString(),
          ttlSeconds: record.durations.ttlMs / 1000,
          reclaimAfterSeconds: record.durations.reclaimAfterMs / 1000,
          heartbeatSeconds: record.durations.heartbeatMs / 1000,
          appAssigned: record.appAssigned,
        });
        expect(m.branch).toBe(record.branch);
        expect(m.tokenDigest).toBe(record.tokenDigest);
        expect(m.supersedes).toBe(record.supersedes);
        expect(m.artifacts).toBe(record.artifacts);
      }),
      params,
    );
  });

  it("a record's text fields cannot break out of the hidden marker or inject markup", () => {
    fc.assert(
      fc.property(claimRecord, (record) => {
        const body = renderClaimComment(record, "active");
        expect(body.match(/<!--/g)).toHaveLength(1);
        expect(body.match(/-->/g)).toHaveLength(1);
        expect(body.trimEnd().endsWith("-->")).toBe(true);
      }),
      params,
    );
  });
});

describe("the /reclaim parser", () => {
  it("never throws and recognises only a command line", () => {
    const line = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.constantFrom(
        "/reclaim",
        "/reclaim release",
        "> /reclaim",
        "    /reclaim",
        "```",
        "~~~",
        "/RECLAIM Release",
      ),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(line, { maxLength: 8 }).map((l) => l.join("\n")),
          anyValue,
        ),
        (body) => {
          const command = parseReclaimCommand(body);
          if (command === null) return;
          expect(command.kind).toBe("reclaim");
          expect(typeof command.release).toBe("boolean");
          expect(typeof body === "string" && /\/reclaim/i.test(body)).toBe(true);
        },
      ),
      params,
    );
  });

  it("ignores the command inside quotes and fenced code, whatever surrounds it", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }).filter((s) => !s.includes("`") && !s.includes("~")),
        (noise) => {
          const inert = noise.replace(/[\r\n]/g, " ");
          expect(parseReclaimCommand(`> /reclaim ${inert}`)).toBeNull();
          expect(parseReclaimCommand(`\`\`\`\n/reclaim\n${inert}\n\`\`\``)).toBeNull();
        },
      ),
      params,
    );
  });
});

describe("the /budget parser", () => {
  it("never throws; a command is a /budget line with a positive amount of at most two decimals, or none", () => {
    const line = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.constantFrom(
        "/budget",
        "/budget +5",
        "/budget 20",
        "/budget $1.25",
        "> /budget +5",
        "```",
        "/BUDGET +0",
      ),
      fc.tuple(fc.constantFrom("/budget ", "/budget +", "/budget $"), fc.string()).map(([a, b]) => a + b),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(line, { maxLength: 8 }).map((l) => l.join("\n")),
          anyValue,
        ),
        (body) => {
          const command = parseBudgetCommand(body);
          if (command === null) return;
          expect(command.kind).toBe("budget");
          expect(typeof body === "string" && /\/budget/i.test(body)).toBe(true);
          if (command.amount === null) return;
          expect(["raise", "set"]).toContain(command.amount.mode);
          expect(command.amount.usd).toBeGreaterThan(0);
          expect(Number.isFinite(command.amount.usd)).toBe(true);
          expect(Math.round(command.amount.usd * 100) / 100).toBe(command.amount.usd);
        },
      ),
      params,
    );
  });
});

describe("the repository config parser", () => {
  it("never throws on any parsed YAML or JSON value; an invalid file falls back to the defaults and says why", () => {
    const yamlText = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.constantFrom(
        "labels: { claimed: 1 }",
        "taskClasses:\n  author: { ttl: 1s }",
        "janitor: { maxReapFraction: 7 }",
        "__proto__: { polluted: true }",
        "a: &a [*a]",
        "limits: { claimsPerSession: -1 }",
      ),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          anyValue,
          yamlText.map((t) => parseDocument(t).toJS({ maxAliasCount: 100 })),
        ),
        (raw) => {
          const result = parseRepoConfig(raw);
          expect(result.config.labels.claimed.length).toBeGreaterThan(0);
          if (result.error) expect(result.error).toMatch(/^\.github\/claim-hold\.yml: /);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      ),
      params,
    );
  });
});

describe("the HTTP body schemas", () => {
  const schemas = { ClaimBody, HeartbeatBody, ReleaseBody, AttestBody, JanitorRunBody, InventoryQuery };
  it("never throw on any input and reject unknown or prototype keys", () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.values(schemas)), anyValue, (schema, input) => {
        const parsed = schema.safeParse(input);
        if (parsed.success) expect(typeof parsed.data).toBe("object");
      }),
      params,
    );
    fc.assert(
      fc.property(fc.constantFrom(...Object.values(schemas)), hostileKey, (schema, key) => {
        const input = JSON.parse(`{"${key}":{"polluted":true}}`);
        expect(schema.safeParse(input).success).toBe(false);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      params,
    );
  });

  it("accept what they should: a well-formed claim body", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9-]{0,20}\/[A-Za-z0-9_-]{1,20}$/),
        positive,
        fc.stringMatching(/^[\w.:@+-]{1,40}$/),
        (repo, issue, sessionId) => {
          expect(ClaimBody.safeParse({ repo, issue, actor: { sessionId } }).success).toBe(true);
        },
      ),
      params,
    );
  });
});

describe("lease ids", () => {
  it("parse total, and round-trip for every valid key", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (id) => void parseLeaseId(id)),
      params,
    );
    const small = fc.integer({ min: 1, max: 999_999_999 });
    fc.assert(
      fc.property(small, small, small, small, (installationId, repoId, issue, generation) => {
        const key = { installationId, repoId, issue };
        expect(parseLeaseId(leaseIdOf(key, generation))).toEqual({ ...key, generation });
      }),
      params,
    );
  });
});
