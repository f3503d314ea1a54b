import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    setupFiles: ["test/support/setup.ts"],
    // The JSON report lets .ci/run end with one plain "N passed, N failed" line.
    reporters: ["default", ["json", { outputFile: "test-results/vitest.json" }]],
  },
});
