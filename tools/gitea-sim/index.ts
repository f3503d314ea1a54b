// A small Gitea simulator: REST v1 for the calls the Gitea provider makes, and webhook payloads signed and delivered like Gitea's.

export type { GiteaFault, GiteaFaultSpec, GiteaRequestMatch } from "./fault-rules.js";
export type { SimComment, SimIssue, SimLabel, SimRepo, SimUser } from "./gitea-state.js";
export { GiteaSimState } from "./gitea-state.js";
export type { GiteaPayloads } from "./hook-payloads.js";
export { restRoutes } from "./rest-routes.js";
export type { GiteaAssigneeChange, GiteaPeople } from "./sim-people.js";
export {
  type GiteaSimulator,
  type LoggedGiteaRequest,
  startGiteaSimulator,
} from "./start-gitea-simulator.js";
export { type GiteaDelivery, GiteaWebhookQueue } from "./webhook-queue.js";
