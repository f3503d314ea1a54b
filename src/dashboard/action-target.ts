// What a dashboard action's form names (its target) and what applying it would do (its plan), read from the posted fields (pure).
import { forgeOfAddress, formRecordOf, type SubjectAddress } from "../domain/subject-address.js";
import { forgeTitle } from "../domain/web-links.js";
import type { ActionTarget, OperatorActionName } from "./action-forms.js";
import { subjectOfPath } from "./subject-path.js";

const field = (form: Record<string, unknown>, name: string): string | undefined => {
  const value = form[name];
  return typeof value === "string" ? value : undefined;
};

/** `<event id>.<sink id>`: the ids the outbox gives its deliveries. */
const deliveryId = /^evt_[A-Za-z0-9]{1,64}\.[A-Za-z0-9]{1,64}$/;

export const subjectActions: readonly OperatorActionName[] = ["release", "requeue", "clear-needs-human"];

/** The subject an action target names (its record only when another forge's). */
export const addressOf = (target: ActionTarget): SubjectAddress => ({
  repo: target.repo as string,
  issue: target.issue as number,
  ...(target.installationId !== undefined ? { installationId: target.installationId } : {}),
});

/** The action's target from the form, or null when a field it needs is missing or malformed. */
export function targetOf(action: OperatorActionName, form: Record<string, unknown>): ActionTarget | null {
  if (action === "notification-retry" || action === "notification-drop") {
    const delivery = field(form, "delivery") ?? "";
    return deliveryId.test(delivery) ? { delivery } : null;
  }
  const note = field(form, "note")?.slice(0, 500);
  if (action === "release" || action === "requeue" || action === "clear-needs-human") {
    const [owner = "", name = ""] = (field(form, "repo") ?? "").split("/");
    const subject = subjectOfPath(owner, name, field(form, "issue") ?? "");
    const generation = field(form, "generation");
    // Another forge's subject carries its installation record (domain/subject-address.ts); GitHub's none.
    const record = formRecordOf(field(form, "installationId"));
    if (!subject || !record || (generation && !/^[1-9]\d{0,9}$/.test(generation))) return null;
    return {
      repo: subject.repo,
      issue: subject.issue,
      ...record,
      ...(generation ? { generation: Number(generation) } : {}),
      ...(note ? { note } : {}),
    };
  }
  const installation = field(form, "installationId");
  if (installation === undefined || installation === "") {
    return action === "janitor-run" ? {} : null;
  }
  // Up to 15 digits: a Gitea instance's installation record is 2^48 + N (docs/architecture.md#gitea-and-forgejo).
  if (!/^[1-9]\d{0,14}$/.test(installation)) return null;
  const installationId = Number(installation);
  return Number.isSafeInteger(installationId) ? { installationId } : null;
}

export function planOf(
  action: OperatorActionName,
  target: ActionTarget,
  label: (id: number) => string,
): string {
  const forge = target.repo ? forgeOfAddress(addressOf(target)) : "github";
  const subject = `${target.repo}#${target.issue}${forge === "github" ? "" : ` on ${forgeTitle(forge)}`}`;
  switch (action) {
    case "release":
      return `Release ${subject}: its agent claim ends (a new generation nobody holds), its App-made assignment and the claim-hold labels go, the agent's pull requests fail the claim-hold check, and the App comments on the issue as "an operator (claim-hold dashboard)" — what a “/reclaim release” comment does.`;
    case "requeue":
      return `Hand ${subject} back to the queue: whoever holds it (a person or a claim left behind) is unassigned, the claim-hold labels go, and agents may claim it again; the App comments on the issue as "an operator (claim-hold dashboard)" — what a “/reclaim release” comment does.`;
    case "clear-needs-human":
      return `Clear needs-human on ${subject}: what removing the needs-human label by hand does — the holder's ask is withdrawn (it asks again with its next heartbeat if still stuck), the failed attempts the failure breaker counts are forgotten, the label goes, the holder's live stream hears "needs_human_answered", and the App comments on the issue as "an operator (claim-hold dashboard)".`;
    case "janitor-run":
      return `A dry run of one janitor sweep${target.installationId ? ` of ${label(target.installationId)}` : ""} found the plan below; nothing was written. Apply runs the sweep again for real (the plan may have moved on since). Paused installations stay paused.`;
    case "janitor-pause":
      return `Pause the janitor for ${label(target.installationId ?? 0)}: every sweep (scheduled or run from here) skips it until it is resumed; claims there are neither marked stale nor reaped.`;
    case "janitor-resume":
      return `Resume the janitor for ${label(target.installationId ?? 0)}: the next sweep plans it again.`;
    case "notification-retry":
      return `Retry the notification delivery ${target.delivery} now: it is due at once, for whichever replica's sender claims it first, with the same event id (the sink's Idempotency-Key); the try counts towards its limit. A delivery a sender is sending right now is left to it.`;
    case "notification-drop":
      return `Drop the notification delivery ${target.delivery}: it leaves the outbox and no replica sends it; the recent notifications list it as dropped by an operator. A delivery a sender is sending right now is left to it.`;
  }
}
