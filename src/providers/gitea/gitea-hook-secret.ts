// Which secret signs a Gitea delivery: the instance's own (hand-made hooks) or one per repository (the App's hooks), and the repository a raw body names (pure).
import { createHmac } from "node:crypto";

/**
 * The secret of the App's hook on one repository: HMAC-SHA256 of `repo:<id>` keyed by the instance
 * secret. Gitea shows a hook's secret to that repository's admins (its hook settings page), so each
 * repository's hook carries its own: what one admin reads signs for her repository only
 * (docs/reference/gitea-surfaces.md#the-apps-own-webhooks).
 */
export function hookSecretOf(instanceSecret: string, repoId: number): string {
  return createHmac("sha256", instanceSecret).update(`repo:${repoId}`).digest("hex");
}

/**
 * How an instance's deliveries are signed. `per-repository`: the App made the hooks, each with
 * `hookSecretOf`. `instance`: hooks made by hand, all with the one secret the operator gave.
 */
export type GiteaHookSecrets = "per-repository" | "instance";

/**
 * `repository.id` of a delivery's raw body, read before its signature is checked and so trusted for
 * nothing but choosing the secret to check it with; null when the body is not JSON or names none.
 */
export function repositoryIdOfRawBody(raw: Uint8Array): number | null {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(raw).toString("utf8"));
  } catch {
    return null;
  }
  if (typeof json !== "object" || json === null) return null;
  const repository = (json as { repository?: unknown }).repository;
  if (typeof repository !== "object" || repository === null) return null;
  const id = (repository as { id?: unknown }).id;
  return typeof id === "number" && Number.isSafeInteger(id) && id > 0 ? id : null;
}

/**
 * The secret a delivery must be signed with: the instance's for hand-made hooks, else the one of the
 * repository the body names (null when it names none: nothing verifies).
 */
export function deliverySecretOf(
  instance: { secret: string; hookSecrets: GiteaHookSecrets },
  rawBody: Uint8Array,
): string | null {
  if (instance.hookSecrets === "instance") return instance.secret;
  const repoId = repositoryIdOfRawBody(rawBody);
  return repoId === null ? null : hookSecretOf(instance.secret, repoId);
}
