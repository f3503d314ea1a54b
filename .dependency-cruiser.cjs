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
      name: "core-is-forge-neutral",
      comment:
        "The lease core, the janitor and the queue serve every forge alike (issue 27): they reach GitHub and Gitea only through the ports in src/providers, never a forge's adapter.",
      severity: "error",
      from: { path: "^src/(lease|janitor|queue)/" },
      to: { path: "^src/providers/(github|gitea)/" },
    },
    {
      name: "lease-without-fence",
      comment:
        "The merge fence builds on the lease core, never the reverse: the core tells it of a claim's changes through the ClaimEvents port (src/lease/transitions/claim-events.ts), which the wiring connects to the fence.",
      severity: "error",
      from: { path: "^src/lease/" },
      to: { path: "^src/fence/" },
    },
    {
      name: "ports-import-domain-only",
      comment:
        "The ports (the interfaces directly in src/providers) depend on the domain, never on the core that uses them: they import only src/domain, src/config, src/contract, the spend unit (src/budget/usage.ts) and each other. create-store.ts is the adapters' factory, not a port.",
      severity: "error",
      from: { path: "^src/providers/[^/]+\\.ts$", pathNot: "^src/providers/create-store\\.ts$" },
      to: {
        path: "^src/",
        pathNot: ["^src/(domain|config|contract)/", "^src/providers/[^/]+\\.ts$", "^src/budget/usage\\.ts$"],
      },
    },
    {
      name: "adapters-below-core",
      comment:
        "The ports and their GitHub, Redis and memory adapters sit below the core: nothing in src/providers imports the lease, the fence, the queue, the janitor, the handlers, the HTTP API, the notifier, the dashboard or the wiring.",
      severity: "error",
      from: { path: "^src/providers/" },
      to: {
        path: [
          "^src/(lease|fence|queue|janitor|handlers|http|wiring|notify|dashboard|metrics|agent|setup)/",
          "^src/(app|main|start-app-server)\\.ts$",
        ],
      },
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
