// merge_group.checks_requested webhooks → the `claim-hold` check on the merge group's head ("Merge queue" in docs/reference/github-surfaces.md#the-claim-hold-check-run).
import type { EmitterWebhookEvent } from "@octokit/webhooks";
import type { MergeFence, MergeGroupEvent } from "../fence/merge-fence.js";
import type { WebhookHandler } from "./webhook-guard.js";

type MergeGroupPayload = EmitterWebhookEvent<"merge_group.checks_requested">["payload"];

/** decide: the group's head and base; the PRs it holds are not in the payload (the fence reads the queue). */
export function decideMergeGroup(payload: MergeGroupPayload): MergeGroupEvent | null {
  const installationId = payload.installation?.id;
  const repository = payload.repository;
  if (!installationId || !repository) return null;
  const { head_sha: headSha, head_ref: headRef, base_ref: baseRef } = payload.merge_group;
  if (!/^[0-9a-f]{40}$/.test(headSha)) return null;
  return {
    installationId,
    repo: repository.full_name,
    repoId: repository.id,
    headSha,
    headRef,
    baseRef,
  };
}

export function mergeGroupChecks(fence: MergeFence): WebhookHandler<MergeGroupPayload, MergeGroupEvent> {
  return {
    decide: decideMergeGroup,
    async apply(group) {
      await fence.mergeGroupRequested(group);
    },
  };
}
