// Loads the webhook fixtures of test/fixtures (real payloads, trimmed; see make-fixtures.mjs there).
import { readFileSync } from "node:fs";
import type { EmitterWebhookEvent, EmitterWebhookEventName } from "@octokit/webhooks";

export const fixtureNames = [
  "check_run.rerequested",
  "check_suite.rerequested",
  "installation.created",
  "installation_repositories.added",
  "issue_comment.created-by-a-bot",
  "issue_comment.created-reclaim",
  "issue_comment.created-reclaim-release",
  "issue_comment.deleted",
  "issue_comment.edited",
  "issues.assigned-someone-else",
  "issues.closed",
  "issues.deleted",
  "issues.labeled-by-a-human",
  "issues.transferred",
  "issues.unassigned-by-a-human",
  "pull_request.opened-by-a-human-from-a-feature-branch",
  "pull_request.opened-from-agent-branch-closing-issue",
  "pull_request.synchronize",
  "push.to-agent-branch",
] as const;
export type FixtureName = (typeof fixtureNames)[number];

/** `issues.unassigned-by-a-human` → `issues.unassigned`; `push.to-agent-branch` → `push`. */
type EmitterNameOf<N extends string> = N extends `push.${string}`
  ? "push"
  : N extends `${infer Event}.${infer Rest}`
    ? Extract<`${Event}.${Rest extends `${infer Action}-${string}` ? Action : Rest}`, EmitterWebhookEventName>
    : never;

/**
 * Typed as the full payload so the compiler catches reads of fields GitHub never sends. The files
 * hold only the fields claim-hold reads: a handler that needs another one gets `undefined` here
 * until the field is added to make-fixtures.mjs.
 */
export type FixturePayload<N extends FixtureName> = EmitterWebhookEvent<EmitterNameOf<N>>["payload"];

const cache = new Map<string, unknown>();

/** A fresh deep copy of the fixture on every call, so a test may change fields freely. */
export function loadFixture<N extends FixtureName>(name: N): FixturePayload<N> {
  let parsed = cache.get(name);
  if (parsed === undefined) {
    parsed = JSON.parse(
      readFileSync(new URL(`../fixtures/${name}.json`, import.meta.url), "utf8"),
    ) as unknown;
    cache.set(name, parsed);
  }
  return structuredClone(parsed) as FixturePayload<N>;
}

/** The `X-GitHub-Event` name of a fixture (what `probot.receive({ id, name, payload })` wants). */
export function fixtureEventName<N extends FixtureName>(name: N): EventNameOf<N> {
  return name.slice(0, name.indexOf(".")) as EventNameOf<N>;
}

type EventNameOf<N extends string> = N extends `${infer Event}.${string}` ? Event : never;
