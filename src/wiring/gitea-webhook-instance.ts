// Which served Gitea (or Forgejo) instance a webhook delivery comes from, by evidence: its signature, and the App's `?instance=N` (pure).
import { forgeOfInstallation } from "../domain/forge.js";
import {
  deliverySecretOf,
  type GiteaHookSecrets,
  repositoryIdOfRawBody,
} from "../providers/gitea/gitea-hook-secret.js";
import {
  type HeaderReader,
  type SignatureCheck,
  signatureHeaders,
  verifyGiteaSignature,
} from "../providers/gitea/gitea-webhook-signature.js";

/** The query parameter the App puts in its own hooks' URLs when it serves several instances. */
export const giteaInstanceQuery = "instance";

export type DeliveryInstance<T> =
  | { kind: "chosen"; instance: T }
  | { kind: "missing" }
  | { kind: "invalid" }
  /** Signed, but every candidate signs per repository and the body names none: nothing could verify it. */
  | { kind: "unnamed" };

/**
 * The instance whose webhook secret the delivery's signature verifies under (the secrets are
 * distinct: src/config/gitea-config.ts), so one route serves every instance and a delivery signed
 * for one instance never acts on another's records. `?instance=N` (the App's own hooks,
 * docs/reference/gitea-surfaces.md#several-instances) narrows the check to instance N, whose secret
 * must still verify it: the query is a hint, never evidence. No signature: `missing`; none verifying,
 * or an instance number no served instance has: `invalid` (`unnamed` when the body names no repository
 * to take a per-repository secret from).
 */
export function deliveryInstance<
  T extends { secret: string; hookSecrets: GiteaHookSecrets; installationId: number },
>(
  instances: readonly T[],
  delivery: { header: HeaderReader; rawBody: Uint8Array; url: string },
): DeliveryInstance<T> {
  const named = new URL(delivery.url, "http://intake.invalid").searchParams.get(giteaInstanceQuery);
  const candidates =
    named === null
      ? instances
      : instances.filter((instance) => String(forgeOfInstallation(instance.installationId).number) === named);
  let missing = false;
  for (const instance of candidates) {
    const check = verifyUnder(instance, delivery);
    if (check.kind === "valid") return { kind: "chosen", instance };
    if (check.kind === "missing") missing = true;
  }
  if (missing) return { kind: "missing" };
  const perRepository =
    candidates.length > 0 && candidates.every((instance) => instance.hookSecrets === "per-repository");
  return perRepository && repositoryIdOfRawBody(delivery.rawBody) === null
    ? { kind: "unnamed" }
    : { kind: "invalid" };
}

/**
 * The signature checked under the secret of the repository the body names (the App's hooks) or the
 * instance's (hand-made): the body's repository id is read before the check only to choose that
 * secret, and the body is acted on only once it verifies.
 */
function verifyUnder(
  instance: { secret: string; hookSecrets: GiteaHookSecrets },
  delivery: { header: HeaderReader; rawBody: Uint8Array },
): SignatureCheck {
  const secret = deliverySecretOf(instance, delivery.rawBody);
  if (secret === null) {
    const signed = signatureHeaders.some((name) => {
      const value = delivery.header(name);
      return value !== undefined && value !== null;
    });
    return signed ? { kind: "invalid" } : { kind: "missing" };
  }
  return verifyGiteaSignature({ header: delivery.header, rawBody: delivery.rawBody, secret });
}
