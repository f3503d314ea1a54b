// A client generated from docs/openapi.json (openapi-typescript) tells the claim's 409 codes apart: a switch over them type-checks, exhaustively.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const committed = JSON.parse(
  readFileSync(new URL("../../docs/openapi.json", import.meta.url), "utf8"),
) as OpenApiDocument;
const dir = mkdtempSync(join(tmpdir(), "claim-hold-client-types-"));

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, ErrorResponse> }>>;
}
interface ErrorResponse {
  content: {
    "application/json": {
      schema: { oneOf: { $ref: string }[]; discriminator: { mapping: Record<string, string> } };
    };
  };
}

/**
 * What a client author writes against the generated types: one branch per 409 code of `POST
 * /api/v1/claims`, each reading its own fields, and a `never` check that no code is left out.
 */
const consumer = `
import type { paths } from "./api";

type ClaimConflict =
  paths["/api/v1/claims"]["post"]["responses"][409]["content"]["application/json"];

export function advice(body: ClaimConflict): string {
  switch (body.error) {
    case "held":
      return \`held by \${body.holder?.login ?? "?"}; reclaimable at \${body.reclaimableAt ?? "?"}\`;
    case "human_held":
      return \`held by a person: \${(body.assignees ?? []).join(", ")}\`;
    case "cap_reached":
      return \`\${body.limit} already holds \${body.max}\`;
    case "blocked":
      return \`blocked by \${body.blockers.map((blocker) => blocker.subject).join(", ")}\`;
    case "pr_open":
      return \`pull requests \${body.pullRequests.map((pr) => pr.number).join(", ")}\`;
    case "missing_capability":
      return \`needs \${body.missing.join(", ")}\`;
    case "failing":
      return \`failed \${body.failures} times\`;
    case "branch_taken":
      return \`\${body.branch} is #\${body.pullRequest} by \${body.author}\`;
    case "closed":
      return body.message;
    default: {
      const unhandled: never = body;
      return unhandled;
    }
  }
}
`;

/** Generates the client types from a document and type-checks the consumer against them; the compiler's complaints. */
async function typeCheck(document: unknown, name: string): Promise<string[]> {
  const at = join(dir, name);
  rmSync(at, { recursive: true, force: true });
  mkdirSync(at);
  writeFileSync(join(at, "api.ts"), astToString(await openapiTS(document as never)));
  writeFileSync(join(at, "consumer.ts"), consumer);
  const program = ts.createProgram([join(at, "consumer.ts")], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    types: [],
    lib: ["lib.es2022.d.ts"],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}

/** The committed document with the claim's 409 answer changed by `edit` (codes and their mapping together). */
function withClaimConflicts(edit: (codes: string[]) => string[]): OpenApiDocument {
  const copy = structuredClone(committed);
  const schema = copy.paths["/api/v1/claims"]!.post!.responses["409"]!.content["application/json"].schema;
  const codes = edit(Object.keys(schema.discriminator.mapping));
  const refOf = (code: string) =>
    `#/components/schemas/${code.replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase())}Error`;
  schema.oneOf = codes.map((code) => ({ $ref: refOf(code) }));
  schema.discriminator.mapping = Object.fromEntries(codes.map((code) => [code, refOf(code)]));
  return copy;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a client generated from docs/openapi.json", () => {
  it("type-checks an exhaustive switch over the claim's 409 codes, each with its own fields", async () => {
    expect(await typeCheck(committed, "committed")).toEqual([]);
  }, 30_000);

  it("fails that check when the document leaves a code out, or adds one the switch does not handle", async () => {
    const missing = await typeCheck(
      withClaimConflicts((codes) => codes.filter((code) => code !== "pr_open")),
      "missing",
    );
    expect(missing.join("\n")).toMatch(/"pr_open"/);
    const extra = await typeCheck(
      withClaimConflicts((codes) => [...codes, "queue_empty"]),
      "extra",
    );
    expect(extra.join("\n")).toMatch(/QueueEmptyError|queue_empty/);
    expect(extra.join("\n")).toMatch(/never/);
  }, 30_000);
});
