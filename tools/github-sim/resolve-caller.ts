// Who an Authorization header names: the App (a JWT it signed), an installation token, or a user's token.
import { createPublicKey, verify } from "node:crypto";
import type { SimState } from "./sim-state.js";
import type { SimCaller } from "./sim-types.js";

export class AuthError extends Error {}

function decodeSegment(segment: string | undefined): Record<string, unknown> | undefined {
  if (!segment) return undefined;
  try {
    const value = JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks an App JWT: RS256, `iss` the App id, not expired (by the wall clock, as the App signs with
 * it). With `publicKey` (PEM, public or private) the signature is verified too.
 */
function checkJwt(token: string, appId: number, publicKey: string | undefined): void {
  const [headerPart, payloadPart, signature] = token.split(".");
  const header = decodeSegment(headerPart);
  const payload = decodeSegment(payloadPart);
  if (!header || !payload || header.alg !== "RS256" || signature === undefined) {
    throw new AuthError("A JSON web token could not be decoded");
  }
  if (String(payload.iss) !== String(appId)) {
    throw new AuthError(`'Issuer' claim ('iss') must be an Integer`);
  }
  const nowSeconds = Math.floor(Date.now() / 1000);
  if (typeof payload.exp !== "number" || payload.exp < nowSeconds) {
    throw new AuthError(
      "'Expiration time' claim ('exp') must be a numeric value representing the future time",
    );
  }
  if (publicKey) {
    const valid = verify(
      "RSA-SHA256",
      Buffer.from(`${headerPart}.${payloadPart}`),
      createPublicKey(publicKey),
      Buffer.from(signature, "base64url"),
    );
    if (!valid) throw new AuthError("A JSON web token could not be decoded");
  }
}

/** Null for no header; throws AuthError (401) for a header that names nobody. */
export function resolveCaller(
  authorization: string | undefined,
  state: SimState,
  appKey: string | undefined,
): SimCaller | null {
  if (!authorization) return null;
  const match = /^(?:token|bearer)\s+(\S+)$/i.exec(authorization.trim());
  if (!match) throw new AuthError("Bad credentials");
  const token = match[1]!;
  if (token.split(".").length === 3 && decodeSegment(token.split(".")[0])?.alg) {
    checkJwt(token, state.app.id, appKey);
    return { kind: "app" };
  }
  const installationToken = state.installationTokens.get(token);
  if (installationToken) {
    const installation = state.installations.get(installationToken.installationId);
    if (!installation || installationToken.expiresAt < state.now()) throw new AuthError("Bad credentials");
    return { kind: "installation", installation, user: state.botUser };
  }
  const userId = state.userTokens.get(token);
  const user = userId === undefined ? undefined : state.users.get(userId);
  if (!user) throw new AuthError("Bad credentials");
  return { kind: "user", user };
}
