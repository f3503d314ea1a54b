// The route label of a request answered by Hono: the template it matched, never the path it sent.

/** The label of a request that matched no route of the API (a 404, a body refused before routing). */
export const unmatchedRoute = "unmatched";

/**
 * The route label of a request from the routes Hono matched, in registration order: the route that
 * answered when it is a route (not a middleware: `ALL`), else the first route that matched, else
 * `unmatched`. Route paths are templates (`/api/v1/leases/:leaseId/heartbeat`), so the label values
 * are bounded by the routes the App mounts, whatever paths clients send.
 */
export function routeLabelOf(
  matched: readonly { method: string; path: string }[],
  answeredAt: number,
): string {
  const answered = matched[answeredAt];
  if (answered && answered.method !== "ALL") return answered.path;
  return matched.find((route) => route.method !== "ALL")?.path ?? unmatchedRoute;
}
