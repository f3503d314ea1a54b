// Lease tokens: `clh_` + 256 random bits, known to the store only as HMAC-SHA256 digests.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const tokenPrefix = "clh_";
const tokenPattern = /^clh_[A-Za-z0-9_-]{43}$/;

export interface TokenMinter {
  mint(): string;
  digest(token: string): string;
  /**
   * Digest of a session's secret `actor.sessionKey` (invariant 14): the same HMAC key as tokens, in
   * its own domain, so a session key never digests to a token's (public) digest.
   */
  sessionKeyDigest(sessionKey: string): string;
  matches(token: string, digest: string): boolean;
  /**
   * The token's digest under the current secret, then under the secret being rotated out (when one
   * is set): a lease minted before the rotation keeps working until it ends or re-claims.
   */
  digests(token: string): string[];
}

export function createTokenMinter(
  secret: string,
  random: (n: number) => Buffer = randomBytes,
  previousSecret?: string,
): TokenMinter {
  const digestWith = (key: string, token: string) => createHmac("sha256", key).update(token).digest("hex");
  const digest = (token: string) => digestWith(secret, token);
  return {
    mint: () => `${tokenPrefix}${random(32).toString("base64url")}`,
    digest,
    digests: (token) =>
      previousSecret ? [digest(token), digestWith(previousSecret, token)] : [digest(token)],
    sessionKeyDigest: (sessionKey) =>
      createHmac("sha256", secret).update("claim-hold:session-key\0").update(sessionKey).digest("hex"),
    matches(token, expected) {
      const actual = Buffer.from(digest(token), "hex");
      const wanted = Buffer.from(expected, "hex");
      return actual.length === wanted.length && timingSafeEqual(actual, wanted);
    },
  };
}

export function looksLikeLeaseToken(value: string): boolean {
  return tokenPattern.test(value);
}

/** Constant-time comparison of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
