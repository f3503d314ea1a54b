// Releasing a stored lease (`release`, MCP `release_claim`): the file says "releasing" until the server has answered.
import type { ReleaseInput, ReleaseResponse } from "../client/index.js";
import { type AgentContext, clientFor, leaseCredentials, serverUrl } from "./agent-context.js";
import { isLeaseLost } from "./errors.js";
import { type LeaseFile, markLease, removeLease } from "./lease-store.js";

export interface ReleaseSteps {
  /** Run once the file says "releasing", before the call (the MCP server stops heartbeating there). */
  beforeCall?: () => Promise<void>;
  /** What the file says again when the release failed and the lease is not lost. */
  restore: { status: LeaseFile["status"]; detail?: string };
  /** Run after the file was restored (the MCP server heartbeats the lease again). */
  afterRestore?: () => void;
}

/** Releases `lease`; the file is removed once released or lost, and restored on any other failure. */
export async function releaseLeaseFile(
  ctx: AgentContext,
  dir: string,
  lease: LeaseFile,
  input: ReleaseInput,
  steps: ReleaseSteps,
): Promise<ReleaseResponse> {
  await markLease(dir, lease, "releasing", `release ${input.outcome} requested`);
  await steps.beforeCall?.();
  let released: ReleaseResponse;
  try {
    released = await clientFor(ctx, serverUrl(ctx, lease)).release(leaseCredentials(lease), input, {
      signal: ctx.signal,
    });
  } catch (error) {
    // Nothing left to release: the file would only mislead the next command.
    if (isLeaseLost(error)) await removeLease(dir, lease);
    else {
      await markLease(dir, lease, steps.restore.status, steps.restore.detail);
      steps.afterRestore?.();
    }
    throw error;
  }
  await removeLease(dir, lease);
  return released;
}
