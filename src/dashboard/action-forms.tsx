/** @jsxImportSource hono/jsx */
// The dashboard's operator action forms and their confirm and result pages (docs/deploy.md#operator-actions); every form works without JavaScript.
import type { FC } from "hono/jsx";
import { forgeOfAddress, type SubjectAddress } from "../domain/subject-address.js";
import { forgeTitle } from "../domain/web-links.js";
import type { NeedsPerson } from "../handlers/operator-clear-needs-human.js";
import type { SweepReport } from "../janitor/sweep-types.js";
import { subjectPageUrl } from "./github-links.js";
import { PageShell } from "./page-shell.js";

export const operatorActionNames = [
  "release",
  "requeue",
  "clear-needs-human",
  "janitor-run",
  "janitor-pause",
  "janitor-resume",
  "notification-retry",
  "notification-drop",
] as const;
export type OperatorActionName = (typeof operatorActionNames)[number];

/** What an action acts on, as the form's hidden fields carry it. */
export interface ActionTarget {
  repo?: string;
  issue?: number;
  /** The generation the operator saw: a release of a subject that has moved on since changes nothing. */
  generation?: number;
  installationId?: number;
  note?: string;
  /** A notification delivery in the outbox (`<event id>.<sink id>`). */
  delivery?: string;
}

const labels: Record<OperatorActionName, string> = {
  release: "Release",
  requeue: "Hand back to the queue",
  "clear-needs-human": "Clear needs-human",
  "janitor-run": "Run the janitor (dry run first)",
  "janitor-pause": "Pause the janitor",
  "janitor-resume": "Resume the janitor",
  "notification-retry": "Retry now",
  "notification-drop": "Drop",
};

const Hidden: FC<{ token: string; target: ActionTarget }> = ({ token, target }) => (
  <>
    <input type="hidden" name="token" value={token} />
    {target.repo ? <input type="hidden" name="repo" value={target.repo} /> : null}
    {target.issue !== undefined ? <input type="hidden" name="issue" value={String(target.issue)} /> : null}
    {target.generation !== undefined ? (
      <input type="hidden" name="generation" value={String(target.generation)} />
    ) : null}
    {target.installationId !== undefined ? (
      <input type="hidden" name="installationId" value={String(target.installationId)} />
    ) : null}
    {target.delivery ? <input type="hidden" name="delivery" value={target.delivery} /> : null}
  </>
);

/** A one-button form: its POST only shows the confirm page, nothing changes yet. */
export const ActionButton: FC<{ token: string; action: OperatorActionName; target: ActionTarget }> = ({
  token,
  action,
  target,
}) => (
  <form class="inline action" method="post" action={`/dashboard/actions/${action}`}>
    <Hidden token={token} target={target} />
    <button type="submit" data-action={action}>
      {labels[action]}
    </button>
  </form>
);

/** A held claim's actions: an agent's claim is released, a person's hold handed back to the queue. */
export const ClaimActions: FC<{
  token: string;
  /** The subject's address: another forge's carries its installation record (domain/subject-address.ts). */
  subject: SubjectAddress;
  generation: number;
  holder: "agent" | "human";
}> = ({ token, subject, generation, holder }) => (
  <div class="actions">
    <ActionButton
      token={token}
      action={holder === "agent" ? "release" : "requeue"}
      target={{ ...subject, generation }}
    />
  </div>
);

/** The janitor's controls: a run (dry run first) and a pause or resume per installation. */
export const JanitorControls: FC<{
  token: string;
  installations: { id: number; label: string; paused: boolean }[];
}> = ({ token, installations }) => (
  <div class="janitor-controls">
    <ActionButton token={token} action="janitor-run" target={{}} />
    {installations.map((installation) => (
      <div data-installation-controls={String(installation.id)}>
        {installation.label}:{" "}
        {installation.paused ? <b class="halted">janitor paused</b> : <span>janitor running</span>}{" "}
        <ActionButton
          token={token}
          action={installation.paused ? "janitor-resume" : "janitor-pause"}
          target={{ installationId: installation.id }}
        />
      </div>
    ))}
  </div>
);

/** What a clear would withdraw or reset, as the store shows it now. */
const NeedsPersonPlan: FC<{ needs: NeedsPerson; forge: string }> = ({ needs, forge }) => (
  <div class="report" id="needs-person">
    {needs.ask ? (
      <p data-needs="ask">
        @{needs.ask.holder} asks for a person{needs.ask.blocker ? `: ${needs.ask.blocker}` : "."}
      </p>
    ) : null}
    {needs.trippedFailures !== null ? (
      <p data-needs="breaker">The failure breaker tripped after {needs.trippedFailures} failed attempt(s).</p>
    ) : null}
    {needs.failures > 0 ? (
      <p data-needs="failures">
        The clear forgets all {needs.failures} failed attempt(s) the store keeps
        {needs.trippedFailures === null ? " (the breaker has not tripped)" : ""}.
      </p>
    ) : null}
    {needs.leftoverLabel ? (
      <p data-needs="leftover-label">
        Nothing asks for a person and the failure breaker has not tripped, but the issue still shows the
        needs-human label (an earlier clear's {forge} write failed): remove the leftover label.
      </p>
    ) : null}
  </div>
);

/** A waiting notification delivery's actions: retry it now, or drop it. */
export const DeliveryActions: FC<{ token: string; delivery: string }> = ({ token, delivery }) => (
  <div class="actions">
    <ActionButton token={token} action="notification-retry" target={{ delivery }} />
    <ActionButton token={token} action="notification-drop" target={{ delivery }} />
  </div>
);

const SweepPlan: FC<{ report: SweepReport; label: (id: number) => string }> = ({ report, label }) => (
  <div class="report" id="sweep-plan">
    <p>
      {report.dryRun ? "Would act" : "Acted"} on {report.actions.length} subject(s) of {report.examined}{" "}
      examined in {report.installations} installation(s); skipped {report.skipped}.
      {report.halted
        ? ` Halted (disruption guard) for ${report.haltedInstallations.map(label).join(", ")}.`
        : ""}
      {report.pausedInstallations.length
        ? ` Paused, not swept: ${report.pausedInstallations.map(label).join(", ")}.`
        : ""}
    </p>
    {report.actions.length ? (
      <ul>
        {report.actions.map((action) => (
          <li data-plan-subject={action.subject}>
            {action.subject}: {action.action} ({action.reason})
          </li>
        ))}
      </ul>
    ) : (
      <p>Nothing to do.</p>
    )}
  </div>
);

/** The confirm step: the plan, and a second POST with `confirm=1` that applies it. */
export const ConfirmPage: FC<{
  token: string;
  action: OperatorActionName;
  target: ActionTarget;
  /** What the action will do, in a sentence. */
  plan: string;
  sweep?: SweepReport;
  /** Clear needs-human: what needs a person now. */
  needs?: NeedsPerson;
  label: (id: number) => string;
}> = ({ token, action, target, plan, sweep, needs, label }) => (
  <PageShell title={`claim-hold — ${labels[action]}?`}>
    <h1>{labels[action]}?</h1>
    <p id="action-plan">{plan}</p>
    {sweep ? <SweepPlan report={sweep} label={label} /> : null}
    {needs ? <NeedsPersonPlan needs={needs} forge={forgeOfTarget(target)} /> : null}
    <form method="post" action={`/dashboard/actions/${action}`} class="confirm">
      <Hidden token={token} target={target} />
      <input type="hidden" name="confirm" value="1" />
      {action === "release" || action === "requeue" || action === "clear-needs-human" ? (
        <p>
          <label>
            Note (quoted in the comment on {forgeOfTarget(target)}){" "}
            <textarea name="note" maxlength={500} rows={2} cols={40}>
              {target.note ?? ""}
            </textarea>
          </label>
        </p>
      ) : null}
      <button type="submit" data-confirm={action}>
        {action === "janitor-run" ? "Apply" : `Yes, ${labels[action].toLowerCase()}`}
      </button>{" "}
      <a href={backHref(target)}>Cancel</a>
    </form>
  </PageShell>
);

/** After the second POST: what was done, and the way back. */
export const ResultPage: FC<{
  action: OperatorActionName;
  target: ActionTarget;
  done: boolean;
  text: string;
  sweep?: SweepReport;
  label: (id: number) => string;
  /** The same action offered again (its confirm step): a GitHub write to redo. */
  again?: { token: string };
}> = ({ action, target, done, text, sweep, label, again }) => (
  <PageShell title={`claim-hold — ${labels[action]}`}>
    <h1>{labels[action]}</h1>
    <p id="action-result" data-done={String(done)} class={done ? "" : "error"}>
      {text}
    </p>
    {sweep ? <SweepPlan report={sweep} label={label} /> : null}
    {again ? <ActionButton token={again.token} action={action} target={target} /> : null}
    <p>
      <a href={backHref(target)} id="back">
        Back
      </a>{" "}
      · <a href="/">The fleet</a>
    </p>
  </PageShell>
);

function backHref(target: ActionTarget): string {
  if (target.delivery) return "/#retrying-notifications";
  return target.repo && target.issue !== undefined
    ? subjectPageUrl(target.repo, target.issue, target.installationId)
    : "/";
}

/** The forge a subject action's comment goes to: its record's when the form names one, else GitHub. */
function forgeOfTarget(target: ActionTarget): string {
  const { repo = "", issue = 0, installationId } = target;
  return forgeTitle(
    forgeOfAddress(installationId !== undefined ? { repo, issue, installationId } : { repo, issue }),
  );
}
