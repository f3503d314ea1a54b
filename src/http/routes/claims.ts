// `POST /api/v1/claims` (SPEC §4.2): a GitHub user with write permission claims an issue for a session.
import type { Hono } from "hono";
import type { Logger } from "pino";
import { subjectName } from "../../domain/claim.js";
import type { LeaseCore } from "../../lease/lease-core.js";
import type { ApiEnv } from "../api-env.js";
import { ClaimBody } from "../api-schemas.js";
import { type AuthDeps, githubCaller } from "../auth.js";
import { readBody } from "../read-body.js";

export interface ClaimRouteDeps {
  core: LeaseCore;
  auth: AuthDeps;
  log: Logger;
}

export function mountClaimRoutes(app: Hono<ApiEnv>, deps: ClaimRouteDeps): void {
  const { core, log } = deps;
  app.post("/api/v1/claims", async (c) => {
    const body = await readBody(c, ClaimBody);
    const { user, installationId } = await githubCaller(c, deps.auth, body.repo, "write");
    // The session key is a secret: it never joins the actor that records, comments and answers show.
    const { sessionKey, ...actor } = body.actor;
    const result = await core.claim({
      installationId,
      repo: body.repo,
      issue: body.issue,
      user,
      actor,
      ...(sessionKey ? { sessionKey } : {}),
      ...(body.leaseToken ? { leaseToken: body.leaseToken } : {}),
      taskClass: body.taskClass,
      takeover: body.takeover,
      ...(body.branch ? { branch: body.branch } : {}),
      ...(body.scope ? { scope: body.scope } : {}),
      ...(body.artifacts ? { artifacts: body.artifacts } : {}),
    });
    log.info(
      { requestId: c.get("requestId"), subject: subjectName(body.repo, body.issue), status: result.status },
      "claim answered",
    );
    return c.json(result.body, result.status);
  });
}
