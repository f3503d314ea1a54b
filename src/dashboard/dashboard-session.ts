// The dashboard's session cookie: an expiry signed with HMAC-SHA256 under a key derived from the admin token.
import { createHmac, timingSafeEqual } from "node:crypto";

export const sessionCookieName = "claim_hold_session";
/** Sessions last a working day; rotating CLAIM_HOLD_ADMIN_TOKEN ends every one of them at once. */
export const sessionLifetimeMs = 12 * 60 * 60_000;

function keyOf(adminToken: string): Buffer {
  return createHmac("sha256", adminToken).update("claim-hold dashboard session v1").digest();
}

function signatureOf(adminToken: string, expiresAt: number): string {
  return createHmac("sha256", keyOf(adminToken)).update(`session:${expiresAt}`).digest("base64url");
}

/** A cookie value `expiresAt.signature`; it carries no secret, only proof that a login happened. */
export function signSession(adminToken: string, now: number): string {
  const expiresAt = now + sessionLifetimeMs;
  return `${expiresAt}.${signatureOf(adminToken, expiresAt)}`;
}

export function verifySession(adminToken: string, value: string | undefined, now: number): boolean {
  const match = value ? /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(value) : null;
  if (!match) return false;
  const expiresAt = Number(match[1]);
  if (!(expiresAt > now)) return false;
  const expected = Buffer.from(signatureOf(adminToken, expiresAt));
  const presented = Buffer.from(match[2]!);
  return expected.length === presented.length && timingSafeEqual(expected, presented);
}

/**
 * The CSRF token of the dashboard's action forms: an HMAC of the session cookie's value, so it is
 * bound to one login (another session's token does not verify) and needs no server-side state.
 */
export function actionTokenOf(adminToken: string, sessionValue: string): string {
  return createHmac("sha256", keyOf(adminToken)).update(`action:${sessionValue}`).digest("base64url");
}

export function verifyActionToken(adminToken: string, sessionValue: string, presented: unknown): boolean {
  if (typeof presented !== "string" || presented.length === 0) return false;
  const expected = Buffer.from(actionTokenOf(adminToken, sessionValue));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
