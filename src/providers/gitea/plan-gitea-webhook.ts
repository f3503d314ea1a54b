// Which writes make a repository's hooks hold exactly one App hook as wanted (pure): create, edit, delete a duplicate, or nothing.
import { createHmac } from "node:crypto";
import type { GiteaHook, GiteaHookOption } from "./gitea-schemas.js";

/**
 * The events the webhook intake acts on, as `CreateHookOption.events` names them. Gitea turns
 * `issues` and `pull_request` on with all their sub-events (`issuesHook`/`pullHook` in its
 * routers/api/v1/utils/hook.go) and lists each one back, so a hook holding these is never re-written.
 * `status`: a commit status someone else posts under the App's context is answered at once.
 */
export const giteaHookEvents = [
  "issues",
  "issue_comment",
  "issue_label",
  "issue_assign",
  "push",
  "pull_request",
  "status",
] as const;

/** Gitea and Forgejo sign both hook types the same way; the App creates `gitea`. */
const ourTypes = new Set(["gitea", "forgejo"]);

export interface WantedHook {
  /** `<CLAIM_HOLD_PUBLIC_URL>/api/gitea/webhooks`: a hook of an App type pointing there is the App's. */
  endpoint: string;
  /** The secret deliveries must be signed with: this repository's `hookSecretOf` (never logged). */
  secret: string;
}

/**
 * Why the App's hook is edited. `secret`: its URL's fingerprint is not the secret's (a new token, a
 * hand-made hook, a hook keyed before each repository had its own). `branch_filter`: Gitea drops the
 * deliveries of pushes to other branches and of pull requests into other base branches.
 */
export type HookDrift = "events" | "active" | "content_type" | "secret" | "branch_filter";

export type HookAction =
  | { kind: "create"; hook: GiteaHookOption }
  | { kind: "edit"; id: number; hook: Omit<GiteaHookOption, "type">; drift: HookDrift[] }
  | { kind: "delete"; id: number };

/**
 * 16 hex digits of an HMAC of the secret, carried in the hook's URL: Gitea never answers a hook's
 * secret, so this is how a pass tells that a hook already has the current one without writing it.
 * One-way, and shorter than the secret: it shows no more than a signed delivery does.
 */
export function secretFingerprint(secret: string): string {
  return createHmac("sha256", secret).update("claim-hold webhook fingerprint").digest("hex").slice(0, 16);
}

/** The URL the App's hook is given: the endpoint with the secret's fingerprint (the intake ignores the query). */
export function hookUrlOf(want: WantedHook): string {
  const joiner = want.endpoint.includes("?") ? "&" : "?";
  return `${want.endpoint}${joiner}fingerprint=${secretFingerprint(want.secret)}`;
}

const withoutQuery = (url: string) => url.split("?")[0]?.replace(/\/+$/, "") ?? "";

/** The writes that leave exactly one App hook, as wanted, among `hooks`; other hooks are never touched. */
export function planGiteaWebhook(hooks: GiteaHook[], want: WantedHook): HookAction[] {
  const url = hookUrlOf(want);
  const option = {
    active: true,
    events: [...giteaHookEvents],
    branch_filter: "*",
    config: { url, content_type: "json", secret: want.secret },
  };
  const ours = hooks.filter(
    (hook) => ourTypes.has(hook.type) && withoutQuery(hook.config?.url ?? "") === withoutQuery(want.endpoint),
  );
  if (ours.length === 0) return [{ kind: "create", hook: { type: "gitea", ...option } }];
  // The one already carrying this secret is kept, else the oldest: the rest would deliver twice.
  const kept = ours.find((hook) => hook.config?.url === url) ?? ours.reduce((a, b) => (b.id < a.id ? b : a));
  const deletes = ours
    .filter((hook) => hook.id !== kept.id)
    .map((hook): HookAction => ({ kind: "delete", id: hook.id }));
  const drift = driftOf(kept, url);
  return drift.length === 0 ? deletes : [{ kind: "edit", id: kept.id, hook: option, drift }, ...deletes];
}

function driftOf(hook: GiteaHook, url: string): HookDrift[] {
  const events = new Set(hook.events ?? []);
  const drift: HookDrift[] = [];
  if (!giteaHookEvents.every((event) => events.has(event))) drift.push("events");
  if (!hook.active) drift.push("active");
  if (hook.config?.content_type !== "json") drift.push("content_type");
  if (hook.config?.url !== url) drift.push("secret");
  // Empty or `*`: every branch; anything else narrows the push and pull request deliveries.
  if (hook.branch_filter && hook.branch_filter !== "*") drift.push("branch_filter");
  return drift;
}
