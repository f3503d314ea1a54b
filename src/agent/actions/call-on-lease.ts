// One API call on a stored lease; a loss the server reports is written into the lease file before it is rethrown.
import { isClaimHoldError } from "../client/index.js";
import { isLeaseLost } from "./errors.js";
import { type LeaseFile, markLease } from "./lease-store.js";

/**
 * Runs `call` on `lease`; when the server says the lease is superseded or gone, runs `onLost` (the MCP
 * server stops its heartbeats there), marks the lease file and rethrows.
 */
export async function callOnLease<T>(
  dir: string,
  lease: LeaseFile,
  call: (lease: LeaseFile) => Promise<T>,
  onLost?: () => Promise<void>,
): Promise<T> {
  try {
    return await call(lease);
  } catch (error) {
    if (isLeaseLost(error) && isClaimHoldError(error)) {
      await onLost?.();
      await markLease(dir, lease, error.code === "superseded" ? "superseded" : "gone", error.message);
    }
    throw error;
  }
}
