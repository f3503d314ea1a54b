// `GET /api/v1/repos/{owner}/{repo}/queue` (docs/reference/http-api.md#get-apiv1reposownerrepoqueuelimit--the-ranked-queue): the ranked eligible issues with reasons, then the first skipped ones with why.
import type { Hono } from "hono";
import type { QueuePicker } from "../../queue/pick-next.js";
import type { ApiEnv } from "../api-env.js";
import { capabilitiesOfQuery, QueueQuery, RepoName } from "../api-schemas.js";
import { type AuthDeps, githubCaller } from "../auth.js";
import type { ReadCache } from "../read-cache.js";
import { UserError } from "../user-error.js";

export interface QueueRouteDeps {
  picker: QueuePicker;
  auth: AuthDeps;
  /** Answers shared per repository and limit for a few seconds (docs/reference/http-api.md#reads). */
  cache: ReadCache;
}

export function mountQueueRoutes(app: Hono<ApiEnv>, deps: QueueRouteDeps): void {
  const { picker, auth, cache } = deps;
  app.get("/api/v1/repos/:owner/:repo/queue", async (c) => {
    const repo = `${c.req.param("owner")}/${c.req.param("repo")}`;
    if (!RepoName.safeParse(repo).success) throw new UserError(404, "not_found", "No such repository.");
    const query = QueueQuery.safeParse({
      limit: c.req.query("limit"),
      capabilities: c.req.query("capabilities"),
    });
    if (!query.success) {
      const issue = query.error.issues[0]!;
      const field = issue.path.join(".");
      throw new UserError(422, "invalid_request", `Query parameter "${field}": ${issue.message}.`, { field });
    }
    const { installationId } = await githubCaller(c, auth, repo, "read", "queue");
    const { limit } = query.data;
    const capabilities = capabilitiesOfQuery(query.data.capabilities);
    // The view is the same for every reader declaring the same capabilities (nobody's own assignment is exempted in it), so it is shared.
    const declared = [...capabilities].sort();
    const key = ["queue", installationId, repo.toLowerCase(), limit, declared.join(",")];
    return c.json(await cache.answer(key, () => picker.view(installationId, repo, "", limit, declared)));
  });
}
