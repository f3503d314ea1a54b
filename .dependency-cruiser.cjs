// The import rules of issue 13's layout, checked by test/architecture.test.ts (and `npx depcruise src tools`).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycle",
      comment:
        "A cycle (type-only imports included) makes two modules one; split the shared part out instead.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "lease-core-is-pure",
      comment:
        "The lease core and the merge fence talk to GitHub and Redis only through the ports in src/providers.",
      severity: "error",
      from: { path: "^src/(lease|fence)/" },
      to: {
        path: [
          "^src/(http|handlers|janitor|app|main|dashboard|metrics|agent)",
          "^src/providers/(redis|memory|github)/",
          "(^|/)node_modules/(@octokit|ioredis|hono|@hono|probot)/",
        ],
      },
    },
    {
      name: "lease-without-fence",
      comment:
        "The merge fence builds on the lease core, never the reverse: the core tells it of a changed subject through a port (subjectChanged).",
      severity: "error",
      from: { path: "^src/lease/" },
      to: { path: "^src/fence/" },
    },
    {
      name: "product-without-tools",
      comment: "The simulator and the local stack are development tools; the product must run without them.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(tools|test|bench|scripts)/" },
    },
    {
      name: "product-without-dev-dependencies",
      comment: "`npm ci --omit=dev` must be enough to run what src/ imports.",
      severity: "error",
      from: { path: "^src/" },
      to: { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "product-declares-its-packages",
      comment:
        "A package src/ imports must be a dependency of its own, not one that arrives through another.",
      severity: "error",
      from: { path: "^src/" },
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown", "unknown", "undetermined"] },
    },
    {
      name: "client-entry-without-server",
      comment: "The published ./client entry pulls in only the client and the wire contract.",
      severity: "error",
      from: { path: "^src/agent/client/" },
      to: { path: "^src/", pathNot: "^src/(agent/client|contract)/" },
    },
    {
      name: "cli-and-mcp-apart",
      comment: "The CLI and the MCP server share src/agent/actions, never each other.",
      severity: "error",
      from: { path: "^src/agent/(cli|mcp)/" },
      to: { path: "^src/agent/(cli|mcp)/", pathNot: "^src/agent/$1/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
