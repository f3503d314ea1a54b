// Gitea and Forgejo webhook deliveries: the HMAC-SHA256 signature of the raw body and the delivery id (pure).
import { createHmac, timingSafeEqual } from "node:crypto";

/** Reads one request header by its lower-case name (Hono's `c.req.header`, `Headers.get`). */
export type HeaderReader = (name: string) => string | null | undefined;

/** Forgejo sends its own headers and, for compatibility, Gitea's; each one present must verify. */
export const signatureHeaders = ["x-forgejo-signature", "x-gitea-signature"] as const;
export const deliveryHeaders = ["x-forgejo-delivery", "x-gitea-delivery"] as const;

export type SignatureCheck =
  | { kind: "valid"; header: (typeof signatureHeaders)[number] }
  | { kind: "missing" }
  | { kind: "invalid" };

/**
 * Gitea signs the exact body bytes with the webhook secret: lower-case hex HMAC-SHA256, no
 * `sha256=` prefix. Compared in constant time; any header present that does not verify fails
 * the delivery, so a forged Gitea header cannot ride along a valid Forgejo one.
 */
export function verifyGiteaSignature(input: {
  header: HeaderReader;
  rawBody: string | Uint8Array;
  secret: string;
}): SignatureCheck {
  const expected = createHmac("sha256", input.secret).update(input.rawBody).digest();
  let first: (typeof signatureHeaders)[number] | null = null;
  for (const name of signatureHeaders) {
    const given = input.header(name);
    if (given === null || given === undefined) continue;
    if (!sameDigest(expected, given.trim())) return { kind: "invalid" };
    first ??= name;
  }
  return first ? { kind: "valid", header: first } : { kind: "missing" };
}

function sameDigest(expected: Buffer, hex: string): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  return timingSafeEqual(expected, Buffer.from(hex, "hex"));
}

/** The delivery's id for deduplication (a UUID on Gitea and Forgejo), or null when absent or malformed. */
export function giteaDeliveryId(header: HeaderReader): string | null {
  for (const name of deliveryHeaders) {
    const value = header(name)?.trim();
    if (value && /^[\w-]{1,128}$/.test(value)) return value;
  }
  return null;
}
