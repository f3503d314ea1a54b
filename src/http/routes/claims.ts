// `POST /api/v1/claims` (docs/reference/http-api.md#post-apiv1claims--claim-re-claim-or-take-over): a GitHub user with write permission claims an issue for a session.
import type { Hono } from "hono";
import type { Logger } from "pino";
import { subjectName } from "../../domain/claim.js";
import type { ClaimOutcome, LeaseCore } from "../../lease/lease-core.js";
import type { QueuePicker } from "../../queue/pick-next.js";
import type { ApiEnv } from "../api-env.js";
import { ClaimBody, NextBody } from "../api-schemas.js";
import { type AuthDeps, githubCaller } from "../auth.js";
import { readBody } from "../read-body.js";

export interface ClaimRouteDeps {
  core: LeaseCore;
  /** `claims/next`; absent: the route answers 404 like any unknown one. */
  picker?: QueuePicker;
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
    const outcome = await core.claim({
      installationId,
      repo: body.repo,
      issue: body.issue,
      user,
      actor,
      ...(sessionKey ? { sessionKey } : {}),
      ...(body.leaseToken ? { leaseToken: body.leaseToken } : {}),
      taskClass: body.taskClass,
      takeover: body.takeover,
      ignoreBlockers: body.ignoreBlockers,
      allowOpenPullRequest: body.allowOpenPullRequest,
      ...(body.branch ? { branch: body.branch } : {}),
      ...(body.scope ? { scope: body.scope } : {}),
      ...(body.artifacts ? { artifacts: body.artifacts } : {}),
      ...(body.capabilities ? { capabilities: body.capabilities } : {}),
      ...(body.override ? { override: true } : {}),
    });
    const answer = claimAnswer(outcome);
    log.info(
      { requestId: c.get("requestId"), subject: subjectName(body.repo, body.issue), status: answer.status },
      "claim answered",
    );
    return c.json(answer.body, answer.status);
  });

  const { picker } = deps;
  if (!picker) return;
  app.post("/api/v1/claims/next", async (c) => {
    const body = await readBody(c, NextBody);
    const { user, installationId } = await githubCaller(c, deps.auth, body.repo, "write");
    const { sessionKey, ...actor } = body.actor;
    const { claim, picked } = await picker.next({
      installationId,
      repo: body.repo,
      user,
      actor,
      ...(sessionKey ? { sessionKey } : {}),
      taskClass: body.taskClass,
      ...(body.labels ? { labels: body.labels } : {}),
      ...(body.excludeLabels ? { excludeLabels: body.excludeLabels } : {}),
      ...(body.capabilities ? { capabilities: body.capabilities } : {}),
      includeTakeovers: body.includeTakeovers,
      ...(body.scope ? { scope: body.scope } : {}),
      ...(body.artifacts ? { artifacts: body.artifacts } : {}),
    });
    const answer = claimAnswer(claim);
    log.info(
      {
        requestId: c.get("requestId"),
        subject: subjectName(body.repo, picked.issue),
        status: answer.status,
        reasons: picked.reasons,
      },
      "next answered",
    );
    return c.json({ ...answer.body, picked }, answer.status);
  });
}

/**
 * 201 a new incarnation, 200 the holder's re-claim, 202 a takeover intent recorded
 * (docs/reference/http-api.md#post-apiv1claims--claim-re-claim-or-take-over).
 */
export function claimAnswer(outcome: ClaimOutcome) {
  switch (outcome.kind) {
    case "claimed":
      return {
        status: 201 as const,
        body: { lease: outcome.lease, resume: outcome.resume, overlaps: outcome.overlaps },
      };
    case "reclaimed":
      return {
        status: 200 as const,
        body: { lease: outcome.lease, resume: null, overlaps: outcome.overlaps },
      };
    case "takeover_pending":
      return {
        status: 202 as const,
        body: {
          status: "takeover_pending" as const,
          retryAfterSeconds: outcome.retryAfterSeconds,
          incumbent: outcome.incumbent,
        },
      };
  }
}
