// The dashboard's "release" and "hand back to the queue" (docs/deploy.md#operator-actions): `/reclaim release` by the operator, through takeBack — the same comment, fence and store transition.
import type { Logger } from "pino";
import type { RepoConfigSource } from "../config/config-source.js";
import type { RepoConfig } from "../config/repo-config.js";
import type { Actor, ClaimRecord, SubjectKey } from "../domain/claim.js";
import type { SubjectAddress } from "../domain/subject-address.js";
import type { SubjectSnapshot } from "../providers/assignment-provider.js";
import { live } from "./reclaim-decision.js";
import { restoredRecord, type TakeBackDeps, takeBack } from "./take-back.js";

/**
 * The GitHub identity an operator action is recorded under. The App writes the comments; the human
 * claim's actor is this name, which no GitHub account can have (`[` is not allowed in a login), so it
 * never matches, mentions or assigns a person.
 */
export const operatorActor: Actor = { kind: "human", login: "claim-hold[dashboard]" };
const byline = "An operator (claim-hold dashboard)";

export interface OperatorTakeBackDeps extends TakeBackDeps {
  /** The installation record of an addressed subject (`routeByForge`'s): null when none serves it. */
  installationOf: (subject: SubjectAddress) => Promise<number | null>;
  configs: RepoConfigSource;
}

export type OperatorTakeBackKind = "release" | "requeue";

export type OperatorTakeBackResult =
  | { outcome: "done"; generation: number; previous: string | null }
  | { outcome: "nothing"; reason: string };

/**
 * `release`: ends a live agent claim; `requeue`: frees a subject a person holds or a claim left
 * behind. Both are `/reclaim release`: nobody is assigned, the managed labels go, the subject is
 * free for `claims/next`.
 */
export async function operatorTakeBack(
  deps: OperatorTakeBackDeps,
  request: SubjectAddress & { kind: OperatorTakeBackKind; generation?: number; note?: string },
  log: Logger,
): Promise<OperatorTakeBackResult> {
  const { repo, issue } = request;
  const installationId = await deps.installationOf(request);
  if (installationId === null) return { outcome: "nothing", reason: `The App is not installed on ${repo}.` };
  const ref = { installationId, repo, issue };
  const snapshot = await deps.assignments.status(ref);
  if (!snapshot) return { outcome: "nothing", reason: `${repo}#${issue} is not an issue the App can read.` };
  const key: SubjectKey = { installationId, repoId: snapshot.repoId, issue: snapshot.issue };
  const record = await restoredRecord(key, snapshot, deps, deps.now());
  // The operator chose what the page showed: a subject that has moved on since (claimed again from
  // the queue, a resent form) is left to its new holder.
  if (request.generation !== undefined && record && record.generation !== request.generation) {
    return {
      outcome: "nothing",
      reason: `${repo}#${issue} is at generation ${record.generation} now, not the ${request.generation} the page showed; reload it.`,
    };
  }
  if (request.kind === "release" && record?.state !== "active") {
    return { outcome: "nothing", reason: `${repo}#${issue} has no live agent claim to release.` };
  }
  const config = await deps.configs.load(installationId, repo);
  // A second click (or a refresh of the result page) finds the subject free and changes nothing.
  if (request.kind === "requeue" && !heldOrMarked(snapshot, record, config)) {
    return {
      outcome: "nothing",
      reason: `${repo}#${issue} is free already: nobody holds or is assigned to it.`,
    };
  }
  const next = await takeBack(
    deps,
    {
      ref,
      key,
      snapshot,
      record,
      config,
      actor: operatorActor,
      actorNodeId: "",
      byline,
      ...(request.note?.trim() ? { note: request.note.trim() } : {}),
      release: true,
      assign: false,
      progress: { storeChanged: false },
    },
    log.child({ operatorAction: request.kind, subject: `${repo}#${issue}` }),
  );
  return {
    outcome: "done",
    generation: next.generation,
    previous: record ? `${record.actor.login} (generation ${record.generation}, ${record.state})` : null,
  };
}

/** Anything a release would undo: a live claim, an assignee, or one of the managed labels. */
function heldOrMarked(snapshot: SubjectSnapshot, record: ClaimRecord | null, config: RepoConfig): boolean {
  const managed = [config.labels.claimed, config.labels.stale, config.labels.needsHuman].map((label) =>
    label.toLowerCase(),
  );
  return (
    live(record) ||
    snapshot.assignees.length > 0 ||
    snapshot.labels.some((label) => managed.includes(label.toLowerCase()))
  );
}
