// One HTTP POST to a sink; its failure is described without the URL (a secret), by status or error code only.
import type { DeliveryRequest } from "./delivery-request.js";

export type PostResult = { ok: true; status: number } | { ok: false; reason: string };

/** POSTs a delivery; never throws. `signal` ends it early (timeout, shutdown). */
export type PostToSink = (url: string, request: DeliveryRequest, signal: AbortSignal) => Promise<PostResult>;

/** fetch's errors quote the URL in places (undici's cause, redirects): only a code or a kind is kept. */
function reasonOf(error: unknown, signal: AbortSignal): string {
  if (signal.aborted)
    return signal.reason instanceof Error && signal.reason.name === "TimeoutError" ? "timeout" : "aborted";
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  const code = cause && typeof cause.code === "string" ? cause.code : undefined;
  return code && /^[A-Z_]+$/.test(code) ? code : "network error";
}

export const postWithFetch: PostToSink = async (url, request, signal) => {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      // A redirect would carry the signed body somewhere the operator did not name.
      redirect: "manual",
      signal,
    });
    // The body is not needed; reading it frees the connection (bounded by the same signal).
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
    return { ok: false, reason: `status ${response.status}` };
  } catch (error) {
    return { ok: false, reason: reasonOf(error, signal) };
  }
};
