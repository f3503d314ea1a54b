// Whether a forge definitely refused a request, so nothing of it can land later (forge-neutral: the lease core and the handlers ask it of any provider's error).

/**
 * True when the forge answered with a 4xx status, or GitHub with a GraphQL error list (the error or
 * one of its causes). A 5xx, a lost connection or the App's own timeout (Gitea's `504`) answers
 * nothing about the request: it may have been applied all the same.
 */
export function definitelyRefused(error: unknown): boolean {
  let at: unknown = error;
  for (let depth = 0; typeof at === "object" && at !== null && depth < 6; depth++) {
    const errors = (at as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) return true;
    const status = (at as { status?: unknown }).status;
    if (typeof status === "number" && status > 0) return status >= 400 && status < 500;
    at = (at as { cause?: unknown }).cause;
  }
  return false;
}
