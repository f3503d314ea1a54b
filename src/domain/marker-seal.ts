// Invariant 11: the MAC that makes a claim-comment marker the App's own (HMAC-SHA256, keyed from the token secret).
import { createHmac, timingSafeEqual } from "node:crypto";

/** A claim marker as the seal sees it: any fields, the MAC among them (the schema is claim-comment's). */
type Sealable = { mac?: string | undefined };

export interface MarkerSeal {
  /** The marker with its `mac` set over every other field. */
  seal<M extends object>(marker: M): M & { mac: string };
  /** True when the marker's `mac` was made with the current secret or the previous one (rotation). */
  verify(marker: Sealable): boolean;
}

/** JSON with object keys sorted at every level, so the MAC does not depend on field order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** A key of its own for markers, so a marker MAC can never be replayed as a token digest or back. */
function markerKey(secret: string): Buffer {
  return createHmac("sha256", secret).update("claim-hold marker mac v1").digest();
}

function macOf(key: Buffer, marker: object): string {
  const { mac: _mac, ...fields } = marker as Sealable;
  return createHmac("sha256", key).update(canonicalJson(fields)).digest("hex");
}

export function createMarkerSeal(secret: string, previousSecret?: string): MarkerSeal {
  const current = markerKey(secret);
  const keys = previousSecret ? [current, markerKey(previousSecret)] : [current];
  return {
    seal: (marker) => ({ ...marker, mac: macOf(current, marker) }),
    verify(marker) {
      if (!marker.mac || !/^[0-9a-f]{64}$/.test(marker.mac)) return false;
      const given = Buffer.from(marker.mac, "hex");
      return keys.some((key) => timingSafeEqual(Buffer.from(macOf(key, marker), "hex"), given));
    },
  };
}
