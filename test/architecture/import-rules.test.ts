// The layout's import rules (.dependency-cruiser.cjs) hold for src/ and tools/: no cycle, a pure lease core, no tools in the product.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

interface CruiseReport {
  summary: {
    violations: { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] }[];
    totalCruised: number;
  };
}

const run = promisify(execFile);

describe("import rules", () => {
  it("src/ and tools/ break none of the rules in .dependency-cruiser.cjs", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        "node_modules/dependency-cruiser/bin/dependency-cruise.mjs",
        "src",
        "tools",
        "--config",
        ".dependency-cruiser.cjs",
        "--output-type",
        "json",
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    const report = JSON.parse(stdout) as CruiseReport;
    const violations = report.summary.violations.map((violation) =>
      violation.cycle
        ? `${violation.rule.name}: ${[violation.from, ...violation.cycle.map((step) => step.name)].join(" → ")}`
        : `${violation.rule.name}: ${violation.from} → ${violation.to}`,
    );
    expect(report.summary.totalCruised).toBeGreaterThan(100);
    expect(violations).toEqual([]);
  });
});
