// The `claim-hold` commit status on Gitea: verdict mapping by table.
import { describe, expect, it } from "vitest";
import type { CheckConclusion } from "../../src/domain/check-values.js";
import { commitStatusOf, type DesiredCommitStatus } from "../../src/providers/gitea/gitea-commit-statuses.js";

describe("commitStatusOf", () => {
  const table: [CheckConclusion | null, string, DesiredCommitStatus["state"]][] = [
    ["success", "Claimed by fleet-bot", "success"],
    ["neutral", "No claim to check", "success"],
    ["failure", "Superseded claim", "failure"],
    [null, "Evaluating", "pending"],
  ];
  it.each(table)("%j is %j → %j", (conclusion, title, state) => {
    expect(commitStatusOf(conclusion, title)).toEqual({ state, context: "claim-hold", description: title });
  });

  it("keeps the description on one short line and passes the details URL", () => {
    const status = commitStatusOf(
      "failure",
      `line one\nline two ${"x".repeat(200)}`,
      "https://claims.example/s/1",
    );
    expect(status.description).toHaveLength(140);
    expect(status.description.startsWith("line one line two")).toBe(true);
    expect(status.description.endsWith("…")).toBe(true);
    expect(status.target_url).toBe("https://claims.example/s/1");
  });
});
