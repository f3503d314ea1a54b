// A comment command (`/reclaim`, `/budget`) acts at most once per comment, whatever its deliveries.
import type { Logger } from "pino";
import { subjectName } from "../domain/claim.js";
import type { FenceStore } from "../providers/fence-store.js";
import type { CommentPayload } from "./reclaim-decision.js";

/** How long a handled comment id is remembered (longer than GitHub keeps redelivering). */
export const commandMemoryMs = 7 * 24 * 60 * 60_000;

/** What a command's run reports: whether the store changed, after which a retry must not act again. */
export interface CommandProgress {
  storeChanged: boolean;
}

/**
 * Runs `act` unless this comment was handled already (the same comment delivered again under a new
 * delivery id). When `act` fails before the store changed (or after it was rolled back), the mark is
 * dropped so a redelivery may try again; once the store changed, it never acts twice.
 */
export async function oncePerComment(
  fences: Pick<FenceStore, "markCommentHandled" | "unmarkComment">,
  command: { name: string; installationId: number; payload: CommentPayload },
  deliveryLog: Logger,
  act: (progress: CommandProgress, log: Logger) => Promise<void>,
): Promise<void> {
  const { name, installationId, payload } = command;
  const commentId = payload.comment.id;
  const log = deliveryLog.child({ subject: subjectName(payload.repository.full_name, payload.issue.number) });
  if (!(await fences.markCommentHandled(installationId, commentId, commandMemoryMs))) {
    log.info({ commentId }, `${name} comment already handled`);
    return;
  }
  const progress: CommandProgress = { storeChanged: false };
  try {
    await act(progress, log);
  } catch (error) {
    if (!progress.storeChanged) await fences.unmarkComment(installationId, commentId);
    log.error({ err: error }, `${name} failed`);
    throw error;
  }
}
