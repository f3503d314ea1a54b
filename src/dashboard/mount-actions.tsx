/** @jsxImportSource hono/jsx */
// `POST /dashboard/actions/{action}` (docs/deploy.md#operator-actions): the operator's actions behind the admin session, a same-origin check and a CSRF token bound to the session; the first POST shows the plan, a second with `confirm=1` applies it.
import type { Context, Hono, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { csrf } from "hono/csrf";
import { html } from "hono/html";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "pino";
import { forgeOfAddress, type SubjectAddress } from "../domain/subject-address.js";
import { forgeTitle } from "../domain/web-links.js";
import type { OperatorClearNeedsHumanResult } from "../handlers/operator-clear-needs-human.js";
import type { OperatorTakeBackResult } from "../handlers/operator-take-back.js";
import type { ApiEnv } from "../http/api-env.js";
import type { JanitorPauses } from "../janitor/janitor-pauses.js";
import { JobBusyError } from "../janitor/job-registry.js";
import type { SweepReport } from "../janitor/sweep-types.js";
import type { OperatorDeliveryResult } from "../providers/outbox-store.js";
import {
  type ActionTarget,
  ConfirmPage,
  type OperatorActionName,
  operatorActionNames,
  ResultPage,
} from "./action-forms.js";
import { addressOf, planOf, subjectActions, targetOf } from "./action-target.js";
import { sessionCookieName, verifyActionToken, verifySession } from "./dashboard-session.js";

/** What the dashboard's actions call: the same functions `/reclaim` and `POST /api/v1/admin/janitor/run` use. */
export interface DashboardActions {
  takeBack(
    request: SubjectAddress & { kind: "release" | "requeue"; generation?: number; note?: string },
  ): Promise<OperatorTakeBackResult>;
  /** The dashboard's "clear needs-human": `apply: false` answers the plan and changes nothing. */
  clearNeedsHuman(
    request: SubjectAddress & { generation?: number; note?: string; apply: boolean },
  ): Promise<OperatorClearNeedsHumanResult>;
  /** The operator's sweep (under the janitor job's run lock): rejects with JobBusyError while one runs. */
  sweep(options: { dryRun: boolean; installationId?: number }): Promise<SweepReport>;
  pauses: Pick<JanitorPauses, "pausedAmong" | "setPaused">;
  /** The notification outbox's retry-now and drop (an operator's drop is counted as dropped); absent: refused. */
  deliveries?: {
    retryNow(id: string): Promise<OperatorDeliveryResult>;
    drop(id: string): Promise<OperatorDeliveryResult>;
  };
  /** Where each applied action is logged (the audit of pause, resume and runs, which comment nowhere). */
  log: Logger;
}

export interface DashboardActionDeps {
  adminToken: string;
  actions: DashboardActions;
  /** Whether a forge the App serves answers for an installation record (another forge's subject's). */
  serves: (installationId: number) => boolean;
  /** Installation names for the pages (login or id). */
  label: (installationIds: number[]) => Promise<(id: number) => string>;
  secureHeaders: (c: Context<ApiEnv>) => void;
  limitForm: MiddlewareHandler;
  now: () => number;
  log: Logger;
}

const refusedForgery = (c: Context<ApiEnv>, why: string) =>
  c.json(
    {
      error: "csrf_refused",
      message: `${why} Nothing was changed; reload the dashboard and try again.`,
    },
    403,
  );

// Same origin as the request, or as the Host header a proxy passed on (the App may sit behind one).
const sameOrigin = csrf({
  origin: (origin, c) => {
    if (origin === new URL(c.req.url).origin) return true;
    const host = c.req.header("host");
    return host !== undefined && URL.canParse(origin) && new URL(origin).host === host;
  },
});

async function fromOwnOrigin(c: Context<ApiEnv>): Promise<boolean> {
  try {
    await sameOrigin(c, async () => undefined);
    return true;
  } catch (error) {
    if (error instanceof HTTPException) return false;
    throw error;
  }
}

export function mountDashboardActions(app: Hono<ApiEnv>, deps: DashboardActionDeps): void {
  const { adminToken, actions, now } = deps;
  const busy = (c: Context<ApiEnv>) =>
    c.json(
      {
        error: "janitor_busy",
        message:
          "A janitor sweep is running already (scheduled or operator-run); retry once it has finished.",
      },
      409,
    );

  app.post("/dashboard/actions/:action", deps.limitForm, async (c) => {
    deps.secureHeaders(c);
    const action = c.req.param("action") as OperatorActionName;
    if (!operatorActionNames.includes(action)) {
      return c.json({ error: "not_found", message: "No such route." }, 404);
    }
    const session = getCookie(c, sessionCookieName);
    if (!session || !verifySession(adminToken, session, now())) {
      return c.json({ error: "unauthorized", message: "Log in first." }, 401);
    }
    if (!(await fromOwnOrigin(c))) {
      return refusedForgery(c, "The form was not sent from the dashboard's own origin.");
    }
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    if (!verifyActionToken(adminToken, session, form.token)) {
      return refusedForgery(c, "The form's token is missing or belongs to another session.");
    }
    const target = targetOf(action, form);
    if (!target) {
      return c.json(
        {
          error: "invalid_request",
          message:
            "An action needs its subject (repo `owner/name`, issue number and, off GitHub, its installation record), installation id or notification delivery id.",
        },
        422,
      );
    }
    // Another forge's record none serves: refused before the plan, so nothing is read or written.
    if (
      subjectActions.includes(action) &&
      target.installationId !== undefined &&
      !deps.serves(target.installationId)
    ) {
      return c.json(
        {
          error: "not_found",
          message: `No forge served here has the installation record ${target.installationId}. Nothing was changed.`,
        },
        404,
      );
    }
    const token = form.token as string;
    if (action === "clear-needs-human") return clearNeedsHuman(c, deps, token, target, form.confirm === "1");
    const label = await deps.label(target.installationId !== undefined ? [target.installationId] : []);

    if (form.confirm !== "1") {
      let sweep: SweepReport | undefined;
      if (action === "janitor-run") {
        try {
          sweep = await actions.sweep({
            dryRun: true,
            ...(target.installationId !== undefined ? { installationId: target.installationId } : {}),
          });
        } catch (error) {
          if (error instanceof JobBusyError) return busy(c);
          throw error;
        }
      }
      const sweepLabel = await deps.label(sweep?.pausedInstallations ?? []);
      const page = (
        <ConfirmPage
          token={token}
          action={action}
          target={target}
          plan={planOf(action, target, label)}
          {...(sweep ? { sweep } : {})}
          label={sweepLabel}
        />
      );
      return c.html(html`<!doctype html>${page}`);
    }

    const log = deps.log.child({ operatorAction: action, requestId: c.get("requestId") });
    const result = await applyAction(action, target, deps, label);
    if (result === "busy") return busy(c);
    if ("refused" in result) {
      log.info({ target, done: false, refused: result.refused.error }, "dashboard operator action");
      return c.json(result.refused, result.status);
    }
    log.info({ target: { ...target, note: undefined }, done: result.done }, "dashboard operator action");
    const sweepLabel = await deps.label(result.sweep?.pausedInstallations ?? []);
    const page = (
      <ResultPage
        action={action}
        target={target}
        done={result.done}
        text={result.text}
        {...(result.sweep ? { sweep: result.sweep } : {})}
        label={sweepLabel}
      />
    );
    return c.html(html`<!doctype html>${page}`, result.done ? 200 : 409);
  });
}

/** Both steps of "clear needs-human": the plan reads what needs a person now; a subject needing none answers 409 `no_person_needed`. */
async function clearNeedsHuman(
  c: Context<ApiEnv>,
  deps: DashboardActionDeps,
  token: string,
  target: ActionTarget,
  apply: boolean,
): Promise<Response> {
  const action = "clear-needs-human";
  const result = await deps.actions.clearNeedsHuman({
    ...addressOf(target),
    ...(target.generation !== undefined ? { generation: target.generation } : {}),
    ...(target.note ? { note: target.note } : {}),
    apply,
  });
  const noLabels = (id: number) => String(id);
  if (result.outcome === "not_needed") {
    return c.json({ error: "no_person_needed", message: result.reason }, 409);
  }
  if (result.outcome === "plan") {
    const page = (
      <ConfirmPage
        token={token}
        action={action}
        target={{ ...target, generation: result.generation }}
        plan={planOf(action, target, noLabels)}
        needs={result.needs}
        label={noLabels}
      />
    );
    return c.html(html`<!doctype html>${page}`);
  }
  const subject = `${target.repo}#${target.issue}`;
  const done = result.outcome === "done";
  let text = `Nothing was changed: ${"reason" in result ? result.reason : ""}`;
  if (result.outcome === "done") {
    const forge = forgeTitle(forgeOfAddress(addressOf(target)));
    const parts = [
      result.withdrewAsk ? "the holder's ask is withdrawn" : null,
      result.failuresCleared > 0
        ? `the failure breaker is reset (${result.failuresCleared} failed attempt(s) forgotten)`
        : null,
      result.leftoverLabel ? "only the leftover needs-human label was left to take off" : null,
    ].filter((part) => part !== null);
    text = `${subject} needs no person now (generation ${result.generation}): ${parts.join("; ")}. ${
      result.shownOnIssue
        ? "The App took the needs-human label off and commented on the issue."
        : `${forge} refused the label removal and the comment. Clear needs-human again to retry them: its plan offers to remove the leftover label.`
    }`;
  }
  deps.log
    .child({ operatorAction: action, requestId: c.get("requestId") })
    .info({ target: { ...target, note: undefined }, done }, "dashboard operator action");
  const retry = result.outcome === "done" && !result.shownOnIssue;
  const page = (
    <ResultPage
      action={action}
      target={target}
      done={done}
      text={text}
      label={noLabels}
      {...(retry ? { again: { token } } : {})}
    />
  );
  return c.html(html`<!doctype html>${page}`, done ? 200 : 409);
}

async function applyAction(
  action: Exclude<OperatorActionName, "clear-needs-human">,
  target: ActionTarget,
  deps: DashboardActionDeps,
  label: (id: number) => string,
): Promise<{ done: boolean; text: string; sweep?: SweepReport } | DeliveryRefusal | "busy"> {
  const { actions, now } = deps;
  switch (action) {
    case "release":
    case "requeue": {
      const { repo, issue } = addressOf(target);
      const result = await actions.takeBack({
        kind: action,
        ...addressOf(target),
        ...(target.generation !== undefined ? { generation: target.generation } : {}),
        ...(target.note ? { note: target.note } : {}),
      });
      if (result.outcome === "nothing") return { done: false, text: `Nothing was changed: ${result.reason}` };
      return {
        done: true,
        text: `${repo}#${issue} is back in the queue at generation ${result.generation}${result.previous ? `; ${result.previous} lost it` : ""}. The App commented on the issue.`,
      };
    }
    case "janitor-run":
      try {
        const sweep = await actions.sweep({
          dryRun: false,
          ...(target.installationId !== undefined ? { installationId: target.installationId } : {}),
        });
        return { done: true, text: `The sweep ran: ${sweep.actions.length} action(s).`, sweep };
      } catch (error) {
        if (error instanceof JobBusyError) return "busy";
        throw error;
      }
    case "janitor-pause":
    case "janitor-resume": {
      const id = target.installationId as number;
      const paused = action === "janitor-pause";
      await actions.pauses.setPaused(id, paused, now());
      return { done: true, text: `The janitor is ${paused ? "paused" : "running again"} for ${label(id)}.` };
    }
    case "notification-retry":
    case "notification-drop": {
      const id = target.delivery as string;
      if (!actions.deliveries) return deliveryRefusal(id, { kind: "missing" });
      const retry = action === "notification-retry";
      const result = retry ? await actions.deliveries.retryNow(id) : await actions.deliveries.drop(id);
      if (result.kind !== "done") return deliveryRefusal(id, result);
      return {
        done: true,
        text: retry
          ? `The notification delivery ${id} is due now (${result.delivery?.attempts ?? 0} failed tries so far); the next sender to claim it sends it.`
          : `The notification delivery ${id} was dropped after ${result.delivery?.attempts ?? 0} failed tries; no replica sends it.`,
      };
    }
  }
}

interface DeliveryRefusal {
  refused: { error: "not_found" | "delivery_in_flight"; message: string };
  status: 404 | 409;
}

function deliveryRefusal(
  id: string,
  result: Exclude<OperatorDeliveryResult, { kind: "done" }>,
): DeliveryRefusal {
  if (result.kind === "missing") {
    return {
      refused: {
        error: "not_found",
        message: `No notification delivery ${id} is queued: it was delivered or dropped already, or never queued. Nothing was changed.`,
      },
      status: 404,
    };
  }
  return {
    refused: {
      error: "delivery_in_flight",
      message: `A sender is sending the notification delivery ${id} right now (its lease ends ${new Date(result.leaseEndsAt).toISOString()}); it was left to it and nothing was changed. Reload the dashboard: once the try has failed, it waits for its retry again.`,
    },
    status: 409,
  };
}
