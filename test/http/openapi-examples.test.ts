// The OpenAPI document's examples: one for every request body and every answer of every operation, each accepted by the schema it illustrates.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allErrorCodes, errorBodySchemaOf, errorCodes } from "../../src/contract/refusals.js";
import { errorComponentName } from "../../src/http/openapi/openapi-document.js";
import { errorsByStatus } from "../../src/http/openapi/route-doc.js";
import { routeDocs } from "../../src/http/openapi/route-docs.js";

interface MediaType {
  example?: unknown;
  examples?: Record<string, { $ref: string }>;
}
interface Operation {
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content: Record<string, MediaType> }>;
}
const document = JSON.parse(readFileSync(new URL("../../docs/openapi.json", import.meta.url), "utf8")) as {
  servers: { url: string; variables?: Record<string, { default: string }> }[];
  paths: Record<string, Record<string, Operation>>;
  components: { examples: Record<string, { value: unknown }> };
};

describe("the document's examples", () => {
  it.each(routeDocs.map((route) => [route.operationId, route] as const))(
    "%s: its request and answer examples pass the schemas the server parses and answers with",
    (_, route) => {
      if (route.body) {
        const parsed = route.body.schema.safeParse(route.body.example);
        expect(parsed.error?.issues ?? []).toEqual([]);
      }
      for (const [status, answer] of Object.entries(route.answers)) {
        const parsed = answer.schema.safeParse(answer.example);
        expect(parsed.error?.issues ?? [], `${status}`).toEqual([]);
      }
    },
  );

  it("are in the document for every operation: request, each answer, and each error code by reference", () => {
    for (const route of routeDocs) {
      const operation = document.paths[route.path]![route.method]!;
      if (route.body)
        expect(operation.requestBody!.content["application/json"]!.example).toEqual(route.body.example);
      for (const [status, answer] of Object.entries(route.answers)) {
        const media = Object.values(operation.responses[status]!.content)[0]!;
        expect(media.example, `${route.operationId} ${status}`).toEqual(answer.example);
      }
      for (const [status, codes] of errorsByStatus(route.errors)) {
        const media = operation.responses[String(status)]!.content["application/json"]!;
        expect(Object.keys(media.examples!).sort()).toEqual([...codes].sort());
        for (const code of codes) {
          const ref = media.examples![code]!.$ref.replace("#/components/examples/", "");
          expect(ref).toBe(errorComponentName(code));
          expect(document.components.examples[ref]!.value).toEqual(errorCodes[code].example);
        }
      }
    }
  });

  it("illustrate every error code with a body its own schema accepts", () => {
    for (const code of allErrorCodes) {
      const parsed = errorBodySchemaOf(code).safeParse(
        document.components.examples[errorComponentName(code)]!.value,
      );
      expect(parsed.error?.issues ?? [], code).toEqual([]);
    }
  });

  it("carry placeholder credentials only", () => {
    const text = JSON.stringify(document);
    for (const token of text.match(/clh_[A-Za-z0-9_]+/g) ?? []) expect(token).toMatch(/^clh_example/);
    expect(text).not.toMatch(/\b(gh[pousr]_|github_pat_)[A-Za-z0-9_]{8,}/);
  });
});

describe("the document's servers", () => {
  it("names one server whose URL a generator can fill in from its default", () => {
    expect(document.servers).toHaveLength(1);
    const [server] = document.servers;
    const filled = server!.url.replace(/\{(\w+)\}/g, (_, name: string) => server!.variables![name]!.default);
    expect(new URL(filled).origin).toBe(filled);
  });
});
