// The local GitHub simulator: REST, GraphQL (GitHub's schema) and signed webhooks, for demo, e2e and fault tests.
export * from "./control-schemas.js";
export type { Fault, FaultSpec } from "./fault-rules.js";
export { GitHubSimulator, type IssueSnapshot } from "./github-simulator.js";
export type { LoggedRequest, RequestMatch } from "./request-log.js";
export type { SimState } from "./sim-state.js";
export type * from "./sim-types.js";
export { type GitHubSimulatorOptions, startGitHubSimulator } from "./start-github-simulator.js";
export { type Delivery, type DeliveryMatch, signWebhook } from "./webhook-queue.js";
