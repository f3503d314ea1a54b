// The refusal table: a row for every code the server can answer, with the status it is answered with, the CLI's exit code, and every detail field documented.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { exitCodeFor, exitCodes } from "../../src/agent/cli/exit-codes.js";
import { ClaimHoldError } from "../../src/agent/client/errors.js";
import { allErrorCodes, type ErrorCode, errorBodySchemaOf, errorCodes } from "../../src/contract/refusals.js";
import { ClaimBody } from "../../src/http/api-schemas.js";
import { errorResponse } from "../../src/http/error-response.js";
import { rateLimited } from "../../src/http/failed-auth-limiter.js";
import { routeDocs, undocumentedRoutes } from "../../src/http/openapi/route-docs.js";
import { parseBody, payloadTooLarge } from "../../src/http/read-body.js";
import { readRateLimited } from "../../src/http/read-limiter.js";
import { leaseRefusal } from "../../src/lease/calls/lease-refusal.js";
import { capabilityRefusal } from "../../src/lease/claim/capability-refusal.js";
import { decideClaim, storeRefusal } from "../../src/lease/claim/decide-claim.js";
import { duplicateWorkRefusal } from "../../src/lease/claim/duplicate-work.js";
import { type Refusal, type RefusalCode, refused } from "../../src/lease/refusals.js";
import { GitHubWriteError } from "../../src/providers/assignment-provider.js";
import { StoreUnavailableError } from "../../src/providers/liveness-store.js";
import { agentClaimRecord } from "../support/claim-record.js";
import { subjectSnapshot } from "../support/subject-snapshot.js";

const root = new URL("../../", import.meta.url).pathname;
const log = pino({ level: "silent" });
const request = { requestId: "r1", log };

function sourceFiles(under: string): { file: string; text: string }[] {
  return readdirSync(join(root, under), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.tsx?$/.test(file))
    .map((file) => ({ file: join(under, file), text: readFileSync(join(root, under, file), "utf8") }));
}

/** The lease core's codes as its `RefusalCode` union spells them. */
function refusalCodesInSource(): string[] {
  const text = readFileSync(join(root, "src/lease/refusals.ts"), "utf8");
  const start = text.indexOf("export type RefusalCode");
  const union = text.slice(start, text.indexOf(";", start));
  return [...union.matchAll(/\|\s*"([a-z_]+)"/g)].map((match) => match[1]!);
}

/** `status code` of every `new UserError(status, "code"` in src/. */
function userErrorsInSource(): string[] {
  const found = new Set<string>();
  for (const { text } of sourceFiles("src")) {
    for (const match of text.matchAll(/new UserError\(\s*(\d+),\s*"([a-z_]+)"/g))
      found.add(`${match[1]} ${match[2]}`);
  }
  return [...found].sort();
}

/** Every JSON error body written as a literal in the server's HTTP code (`{ error: "code", message: … }`). */
function literalBodiesInSource(): string[] {
  const found = new Set<string>();
  for (const under of ["src/http", "src/metrics", "src/dashboard", "src/wiring"]) {
    for (const { text } of sourceFiles(under)) {
      for (const match of text.matchAll(/\{\s*error:\s*"([a-z_]+)",\s*message:/g)) found.add(match[1]!);
    }
  }
  return [...found].sort();
}

/** The body parsed with the code's schema made strict: a field the row does not document fails. */
function undocumentedFields(body: Record<string, unknown>): string[] {
  const code = body.error as ErrorCode;
  expect(allErrorCodes, `no row for ${code}`).toContain(code);
  const strict = z.strictObject(errorBodySchemaOf(code).shape);
  const parsed = strict.safeParse(body);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${code}: ${issue.message} at ${issue.path.join(".")}`);
}

const bodyOf = (refusal: Refusal) => ({ error: refusal.code, message: refusal.message, ...refusal.details });

const record = agentClaimRecord;

describe("the refusal table", () => {
  it("has a row for every code of the lease core, answered with the row's status", () => {
    const codes = refusalCodesInSource();
    expect(codes.length).toBeGreaterThan(10);
    for (const code of codes) {
      expect(allErrorCodes, `RefusalCode ${code} has no row`).toContain(code);
      const answer = errorResponse(refused({ code: code as RefusalCode, message: "m" }), request);
      expect(answer.status, code).toBe(errorCodes[code as ErrorCode].status);
      expect(answer.body.error).toBe(code);
    }
  });

  it("has a row for every code the HTTP layer throws, with the status it throws it with", () => {
    const pairs = userErrorsInSource();
    expect(pairs.length).toBeGreaterThan(5);
    for (const pair of pairs) {
      const code = pair.split(" ")[1] as ErrorCode;
      expect(allErrorCodes, `UserError code ${code} has no row`).toContain(code);
      expect(`${errorCodes[code].status} ${code}`).toBe(pair);
    }
  });

  it("has a row for every error body the server writes itself, and for every error it maps", () => {
    for (const code of literalBodiesInSource()) expect(allErrorCodes, `${code} has no row`).toContain(code);
    const answers = [
      errorResponse(new StoreUnavailableError(null), request),
      errorResponse(new GitHubWriteError("refused"), request),
      errorResponse(new Error("boom"), request),
      payloadTooLarge,
    ];
    for (const answer of answers) {
      const code = answer.body.error as ErrorCode;
      expect(errorCodes[code]?.status, code).toBe(answer.status);
    }
  });

  it("has no row that no route answers", () => {
    const listed = new Set([
      ...routeDocs.flatMap((route) => route.errors),
      ...undocumentedRoutes.flatMap((route) => route.errors ?? []),
    ]);
    expect(allErrorCodes.filter((code) => !listed.has(code))).toEqual([]);
  });

  it("gives the CLI's exit code for each code: 3 not for you now, 4 lease lost, 1 anything else", () => {
    for (const code of allErrorCodes) {
      const row = errorCodes[code];
      const error = new ClaimHoldError({ status: row.status, code, message: "m" });
      expect(`${code} → ${exitCodeFor(error)}`).toBe(`${code} → ${row.exit}`);
    }
    // The exit codes docs/reference/cli.md#exit-codes binds, spelled out: a row moved to another exit
    // fails here.
    const byExit = (exit: number) => allErrorCodes.filter((code) => errorCodes[code].exit === exit).sort();
    expect(byExit(exitCodes.held)).toEqual(
      [
        "blocked",
        "branch_taken",
        "cap_reached",
        "failing",
        "held",
        "human_held",
        "missing_capability",
        "pr_open",
        "queue_empty",
      ].sort(),
    );
    expect(byExit(exitCodes.lost)).toEqual(["gone", "superseded"]);
    expect(exitCodeFor(new ClaimHoldError({ status: 202, code: "takeover_pending", message: "m" }))).toBe(3);
  });

  it("has an example for every code that its own body schema accepts, documenting every field", () => {
    for (const code of allErrorCodes) {
      const example = errorCodes[code].example as Record<string, unknown>;
      expect(example.error).toBe(code);
      expect(undocumentedFields(example)).toEqual([]);
    }
  });
});

describe("the bodies the server really sends", () => {
  const subject = "octo/widgets#12";
  const snapshot = (overrides = {}) =>
    subjectSnapshot({ repoId: 7, repo: "octo/widgets", issue: 12, ...overrides });
  const decide = (given: ReturnType<typeof snapshot>, branch?: string) =>
    decideClaim({
      request: {
        user: { login: "fleet-bot", id: 1, nodeId: "U_fleet" },
        actor: { sessionId: "s1" },
        ...(branch ? { branch } : {}),
      },
      snapshot: given,
      latest: undefined,
      ghost: false,
      agentBranches: ["agent/**"],
      fleetAssignees: new Set(),
    });
  const refusalOf = (decision: ReturnType<typeof decide>) => {
    if (decision.kind !== "refused") throw new Error("expected a refusal");
    return decision.refusal;
  };
  const foreignPr = { number: 31, headRef: "agent/s1/12-x", author: "mona" };

  it.each<[string, () => Refusal | null]>([
    ["held", () => storeRefusal({ kind: "held", current: record() }, subject, 120_000)],
    [
      "held with a pending takeover",
      () =>
        storeRefusal(
          {
            kind: "held",
            current: record(),
            takeoverPendingBy: { kind: "agent", login: "b", sessionId: "s3" },
          },
          subject,
          120_000,
        ),
    ],
    [
      "human_held (a /reclaim claim)",
      () =>
        storeRefusal(
          { kind: "human_held", current: record({ actor: { kind: "human", login: "alice" } }) },
          subject,
          0,
        ),
    ],
    ["cap_reached", () => storeRefusal({ kind: "cap_reached", limit: "session", max: 2 }, subject, 0)],
    [
      "human_held (an assignee)",
      () => refusalOf(decide(snapshot({ assignees: [{ login: "alice", nodeId: "U_a" }] }))),
    ],
    ["branch_not_allowed", () => refusalOf(decide(snapshot(), "fix-parser"))],
    ["branch_taken", () => refusalOf(decide(snapshot({ openPullRequests: [foreignPr] }), foreignPr.headRef))],
    [
      "blocked",
      () =>
        duplicateWorkRefusal({
          request: { takeover: false },
          snapshot: snapshot(),
          blockers: ["octo/widgets#9"],
        }),
    ],
    [
      "pr_open",
      () =>
        duplicateWorkRefusal({
          request: { takeover: false },
          snapshot: snapshot({ openPullRequests: [foreignPr] }),
          blockers: [],
        }),
    ],
    [
      "missing_capability",
      () =>
        capabilityRefusal({
          declared: ["python"],
          snapshot: snapshot({ labels: ["needs:gpu"] }),
          prefix: "needs:",
        }),
    ],
    ["superseded", () => leaseRefusal({ kind: "superseded", current: record({ generation: 4 }) } as never)],
    [
      "superseded (rotated)",
      () => leaseRefusal({ kind: "superseded", current: record(), rotatedAt: 5_000 } as never),
    ],
    ["gone", () => leaseRefusal({ kind: "gone", reason: "reaped", current: record() } as never)],
  ])("%s: every field is in the row", (_, make) => {
    const refusal = make();
    expect(refusal).not.toBeNull();
    expect(undocumentedFields(bodyOf(refusal!))).toEqual([]);
  });

  it("the HTTP layer's own: rate limits and a refused body field", () => {
    expect(undocumentedFields(rateLimited(5).toBody())).toEqual([]);
    expect(undocumentedFields(readRateLimited("inventory", 12).toBody())).toEqual([]);
    let thrown: unknown;
    try {
      parseBody('{"repo":"octo/app","issue":12,"actor":{"sessionID":"x"}}', "application/json", ClaimBody);
    } catch (error) {
      thrown = error;
    }
    const answer = errorResponse(thrown, request);
    expect(answer.body.error).toBe("invalid_request");
    expect(undocumentedFields(answer.body)).toEqual([]);
  });
});
