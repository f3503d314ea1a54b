// Reads with a GitHub token (docs/reference/http-api.md#reads): one subject's claim, and a repository's inventory of claims.
import type { Hono } from "hono";
import type { LeaseCore } from "../../lease/lease-core.js";
import type { ApiEnv } from "../api-env.js";
import { InventoryQuery, RepoName } from "../api-schemas.js";
import { type AuthDeps, githubCaller } from "../auth.js";
import type { ReadCache } from "../read-cache.js";
import { UserError } from "../user-error.js";

export interface InventoryRouteDeps {
  core: LeaseCore;
  auth: AuthDeps;
  /** Answers shared per repository and query for a few seconds. */
  cache: ReadCache;
}

export function mountInventoryRoutes(app: Hono<ApiEnv>, deps: InventoryRouteDeps): void {
  const { core, auth, cache } = deps;
  app.get("/api/v1/repos/:owner/:repo/issues/:number/claim", async (c) => {
    const repo = `${c.req.param("owner")}/${c.req.param("repo")}`;
    const issue = Number(c.req.param("number"));
    if (
      !RepoName.safeParse(repo).success ||
      !Number.isSafeInteger(issue) ||
      issue < 1 ||
      issue > 2_147_483_647
    ) {
      throw new UserError(404, "not_found", "No such repository or issue.");
    }
    const { installationId } = await githubCaller(c, auth, repo, "read", "subject");
    // Served only after this caller's permission was checked; the answer itself is shared.
    const key = ["subject", installationId, repo.toLowerCase(), issue];
    return c.json(await cache.answer(key, () => core.subject(installationId, repo, issue)));
  });

  app.get("/api/v1/repos/:owner/:repo/claims", async (c) => {
    const repo = `${c.req.param("owner")}/${c.req.param("repo")}`;
    if (!RepoName.safeParse(repo).success) throw new UserError(404, "not_found", "No such repository.");
    const query = InventoryQuery.safeParse({ state: c.req.query("state"), limit: c.req.query("limit") });
    if (!query.success) {
      const issue = query.error.issues[0]!;
      throw new UserError(
        422,
        "invalid_request",
        `Query parameter "${issue.path.join(".")}": ${issue.message}.`,
        {
          field: issue.path.join("."),
        },
      );
    }
    const { installationId } = await githubCaller(c, auth, repo, "read", "inventory");
    const { state, limit } = query.data;
    const key = ["inventory", installationId, repo.toLowerCase(), state ?? "", limit];
    return c.json(await cache.answer(key, () => core.inventory(installationId, repo, query.data)));
  });
}
