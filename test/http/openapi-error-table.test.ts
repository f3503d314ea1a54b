// The error-code table of docs/reference/http-api.md is the one the refusal table renders.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allErrorCodes } from "../../src/contract/refusals.js";
import { renderErrorCodeTable, withErrorCodeTable } from "../../src/http/openapi/error-code-table.js";

const page = readFileSync(new URL("../../docs/reference/http-api.md", import.meta.url), "utf8");

describe("docs/reference/http-api.md's error codes", () => {
  it("are the table src/contract/refusals.ts renders", () => {
    expect(page, "the error-code table differs from the refusal table: run `npm run openapi`").toBe(
      withErrorCodeTable(page),
    );
  });

  it("have one row per code", () => {
    const rows = renderErrorCodeTable()
      .split("\n")
      .filter((line) => /^\| `[a-z_]+` \| \d{3} \|/.test(line));
    expect(rows.map((line) => line.split("`")[1])).toEqual(allErrorCodes);
  });
});
