/** @jsxImportSource hono/jsx */
// Dashboard routes (docs/deploy.md#8-watch-it): `/`, its refresh fragment and each subject's page behind a login form for the admin token; 404 without one.
import type { Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { otherForgeRecordOf, type SubjectAddress } from "../domain/subject-address.js";
import type { ApiEnv } from "../http/api-env.js";
import { sameSecret } from "../http/auth.js";
import type { FailedAuthLimiter } from "../http/failed-auth-limiter.js";
import { maxBodyBytes } from "../http/read-body.js";
import { type DerivedState, derivedStates } from "../lease/reads/derive-state.js";
import type { AccountNames } from "./account-names.js";
import {
  type AccountLabels,
  accountLabels,
  DashboardPage,
  type FleetFilter,
  FleetFragment,
} from "./dashboard-page.js";
import {
  actionTokenOf,
  sessionCookieName,
  sessionLifetimeMs,
  signSession,
  verifySession,
} from "./dashboard-session.js";
import { type DashboardActions, mountDashboardActions } from "./mount-actions.js";
import { contentSecurityPolicy, LoginPage } from "./page-shell.js";
import type { FleetView } from "./read-fleet.js";
import type { FleetRepository, QueuePanel } from "./read-queues.js";
import type { SubjectPageData } from "./read-subject.js";
import { SubjectPage } from "./subject-page.js";
import { subjectOfPath } from "./subject-path.js";
import type { TimelineData } from "./timeline/read-timeline.js";
import { timelineRangeOf, timelineRanges } from "./timeline/timeline-range.js";

export interface DashboardDeps {
  /** Absent: every dashboard route answers 404. */
  adminToken?: string;
  readFleet: () => Promise<FleetView>;
  /** The window's history (`?range=`, 24 h by default), spend and recent notifications; absent: the page shows the current state only. */
  readTimeline?: (windowMs: number) => Promise<TimelineData>;
  /** One subject's page data; absent: subject pages answer 404. */
  readSubject?: (subject: SubjectAddress) => Promise<SubjectPageData | null>;
  /**
   * Whether a forge the App serves answers for an installation record (`routeByForge`'s `serves`):
   * another forge's subject page or action naming a record none serves answers 404 before any read.
   * Absent: GitHub's records only.
   */
  serves?: (installationId: number) => boolean;
  /** Installation account logins (cached); absent: installations are shown by id. */
  accountNames?: AccountNames;
  /** The queue panel of each repository (`createQueueReader`); absent: the page shows no queues. */
  readQueues?: (repos: FleetRepository[]) => Promise<QueuePanel[]>;
  /** The operator's actions (docs/deploy.md#operator-actions); absent: the pages show no action buttons. */
  actions?: DashboardActions;
  limiter: FailedAuthLimiter;
  now: () => number;
}

/** Paths the dashboard answers (the App's HTTP adapter routes them here). */
export const dashboardPaths =
  /^\/(|login|logout|dashboard\/(fragment|fleet\.json|actions\/[^/]+)|subjects\/([^/]+\/[^/]+\/)?[^/]+\/[^/]+\/[^/]+)$/;

function filterOf(c: Context<ApiEnv>, view: FleetView): FleetFilter {
  const repo = c.req.query("repo");
  const state = c.req.query("state");
  return {
    range: timelineRangeOf(c.req.query("range")),
    ...(repo && view.repos.includes(repo) ? { repo } : {}),
    ...(state && (derivedStates as readonly string[]).includes(state)
      ? { state: state as DerivedState }
      : {}),
  };
}

function secureHeaders(c: Context<ApiEnv>): void {
  c.header("Content-Security-Policy", contentSecurityPolicy);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", "no-store");
}

export function mountDashboard(app: Hono<ApiEnv>, deps: DashboardDeps): void {
  const { adminToken, limiter, now } = deps;
  const notFound = (c: Context<ApiEnv>) => c.json({ error: "not_found", message: "No such route." }, 404);
  const queuesOf = (view: FleetView) => (deps.readQueues ? deps.readQueues(view.repositories) : []);
  const loggedIn = (c: Context<ApiEnv>) =>
    adminToken !== undefined && verifySession(adminToken, getCookie(c, sessionCookieName), now());
  const historyOf = (c: Context<ApiEnv>) =>
    deps.readTimeline?.(timelineRanges[timelineRangeOf(c.req.query("range"))]) ?? null;
  const accountsOf = async (view: FleetView) =>
    accountLabels(
      deps.accountNames
        ? await deps.accountNames([
            ...view.claims.map((claim) => claim.installationId),
            ...view.repositories.map((repository) => repository.installationId),
            ...(view.janitor?.haltedInstallations ?? []),
          ])
        : new Map(),
    );

  /** The action forms' token and the janitor's per-installation pause state; null without actions. */
  const controlsOf = async (c: Context<ApiEnv>, view: FleetView, accounts: AccountLabels) => {
    const session = getCookie(c, sessionCookieName);
    if (!deps.actions || !adminToken || !session) return null;
    const ids = [
      ...new Set([
        ...view.repositories.map((repository) => repository.installationId),
        ...view.claims.map((claim) => claim.installationId),
      ]),
    ].sort((a, b) => a - b);
    const paused = await deps.actions.pauses.pausedAmong(ids);
    return {
      token: actionTokenOf(adminToken, session),
      installations: ids.map((id) => ({ id, label: accounts.of(id), paused: paused.includes(id) })),
    };
  };

  app.get("/", async (c) => {
    if (!adminToken) return notFound(c);
    secureHeaders(c);
    if (!loggedIn(c)) return c.redirect("/login", 303);
    const [view, history] = await Promise.all([deps.readFleet(), historyOf(c)]);
    const [queues, accounts] = await Promise.all([queuesOf(view), accountsOf(view)]);
    const controls = await controlsOf(c, view, accounts);
    const page = (
      <DashboardPage
        {...(controls ? { controls } : {})}
        view={view}
        filter={filterOf(c, view)}
        states={derivedStates}
        queues={queues}
        history={history}
        accounts={accounts}
      />
    );
    return c.html(html`<!doctype html>${page}`);
  });

  app.get("/dashboard/fragment", async (c) => {
    if (!adminToken) return notFound(c);
    secureHeaders(c);
    if (!loggedIn(c)) return c.json({ error: "unauthorized", message: "Log in first." }, 401);
    const [view, history] = await Promise.all([deps.readFleet(), historyOf(c)]);
    const [queues, accounts] = await Promise.all([queuesOf(view), accountsOf(view)]);
    const controls = await controlsOf(c, view, accounts);
    return c.html(
      <FleetFragment
        {...(controls ? { controls } : {})}
        view={view}
        filter={filterOf(c, view)}
        queues={queues}
        history={history}
        accounts={accounts}
      />,
    );
  });

  /** A subject's page, once its address is read from the path (GitHub's or another forge's record). */
  const subjectPage = async (
    c: Context<ApiEnv>,
    address: SubjectAddress,
    read: NonNullable<DashboardDeps["readSubject"]>,
    admin: string,
  ) => {
    const data = await read(address);
    if (!data) {
      const on =
        address.installationId !== undefined ? ` (installation record ${address.installationId})` : "";
      return c.json(
        {
          error: "not_found",
          message: `${address.repo}#${address.issue}${on} is not an issue the App can read.`,
        },
        404,
      );
    }
    const session = getCookie(c, sessionCookieName);
    const token = deps.actions && session ? actionTokenOf(admin, session) : undefined;
    return c.html(
      html`<!doctype html>${<SubjectPage data={data} {...(token ? { actionToken: token } : {})} />}`,
    );
  };

  app.get("/subjects/:owner/:repo/:number", async (c) => {
    if (!adminToken || !deps.readSubject) return notFound(c);
    secureHeaders(c);
    if (!loggedIn(c)) return c.redirect("/login", 303);
    const { owner, repo, number } = c.req.param();
    const subject = subjectOfPath(owner, repo, number);
    if (!subject) {
      return c.json(
        { error: "invalid_request", message: "A subject page is /subjects/{owner}/{repo}/{issue number}." },
        422,
      );
    }
    return subjectPage(c, subject, deps.readSubject, adminToken);
  });

  // Another forge's subject (docs/deploy.md#8-watch-it): `/subjects/gitea/{installation record}/{owner}/{repo}/{n}`.
  app.get("/subjects/:forge/:record/:owner/:repo/:number", async (c) => {
    if (!adminToken || !deps.readSubject) return notFound(c);
    secureHeaders(c);
    if (!loggedIn(c)) return c.redirect("/login", 303);
    const { forge, record, owner, repo, number } = c.req.param();
    // Served only: a record no forge here serves is never read (nor echoed back).
    const installationId = otherForgeRecordOf(forge, record);
    if (installationId === null || !(deps.serves?.(installationId) ?? false)) {
      return c.json(
        {
          error: "not_found",
          message:
            "No Gitea instance served here has that installation record: a Gitea subject's page is /subjects/gitea/{its installation record}/{owner}/{repo}/{issue number}.",
        },
        404,
      );
    }
    const subject = subjectOfPath(owner, repo, number);
    if (!subject) {
      return c.json(
        {
          error: "invalid_request",
          message: "A subject page is /subjects/gitea/{installation record}/{owner}/{repo}/{issue number}.",
        },
        422,
      );
    }
    return subjectPage(c, { ...subject, installationId }, deps.readSubject, adminToken);
  });

  app.get("/dashboard/fleet.json", async (c) => {
    if (!adminToken) return notFound(c);
    c.header("Cache-Control", "no-store");
    if (!loggedIn(c)) return c.json({ error: "unauthorized", message: "Log in first." }, 401);
    const view = await deps.readFleet();
    return c.json({ ...view, queues: await queuesOf(view) });
  });

  app.get("/login", (c) => {
    if (!adminToken) return notFound(c);
    secureHeaders(c);
    return c.html(html`<!doctype html>${<LoginPage />}`);
  });

  // The form is read before anyone is known, so it has the API's body limit (docs/reference/http-api.md).
  const limitForm = bodyLimit({
    maxSize: maxBodyBytes,
    onError: (c) => c.json({ error: "payload_too_large", message: "Bodies are limited to 64 KiB." }, 413),
  });

  app.post("/login", limitForm, async (c) => {
    if (!adminToken) return notFound(c);
    secureHeaders(c);
    const address = c.get("clientAddress");
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const token = typeof form.token === "string" ? form.token : "";
    // The token is always checked; only a wrong one meets the failed-auth limit.
    if (!token || !sameSecret(token, adminToken)) {
      const retryAfter = limiter.blockedFor(address) || (await limiter.fail(address));
      if (retryAfter > 0) {
        c.header("Retry-After", String(retryAfter));
        return c.html(
          html`<!doctype html>${<LoginPage error="Too many failed attempts; wait a minute." />}`,
          429,
        );
      }
      return c.html(html`<!doctype html>${<LoginPage error="That is not the admin token." />}`, 401);
    }
    setCookie(c, sessionCookieName, signSession(adminToken, now()), {
      httpOnly: true,
      sameSite: "Strict",
      secure: new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https",
      path: "/",
      maxAge: Math.floor(sessionLifetimeMs / 1000),
    });
    return c.redirect("/", 303);
  });

  if (adminToken && deps.actions) {
    const { actions } = deps;
    mountDashboardActions(app, {
      adminToken,
      actions,
      serves: deps.serves ?? (() => false),
      label: async (ids) =>
        accountLabels(deps.accountNames && ids.length ? await deps.accountNames(ids) : new Map()).of,
      secureHeaders,
      limitForm,
      now,
      log: actions.log,
    });
  }

  app.post("/logout", (c) => {
    if (!adminToken) return notFound(c);
    deleteCookie(c, sessionCookieName, { path: "/" });
    return c.redirect("/login", 303);
  });
}
