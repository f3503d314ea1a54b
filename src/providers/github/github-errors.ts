// GitHub errors as the providers read them: GraphQL error lists, NOT_FOUND answers, and one redacted line for a message.
import { redactSecrets } from "../../redact-secrets.js";
import { httpStatusOf } from "./octokit-like.js";

interface GraphqlErrorLike {
  message?: unknown;
  type?: unknown;
  path?: unknown;
}

function graphqlErrorsOf(error: unknown): GraphqlErrorLike[] | null {
  if (typeof error !== "object" || error === null || !("errors" in error)) return null;
  const errors = (error as { errors: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 ? (errors as GraphqlErrorLike[]) : null;
}

/** True when GitHub answered a GraphQL read with NOT_FOUND errors only (a missing repository or number). */
export function onlyNotFoundErrors(error: unknown): boolean {
  return graphqlErrorsOf(error)?.every((e) => e.type === "NOT_FOUND") ?? false;
}

/** One line for an error message: each GraphQL error with the mutation field it hit, or the HTTP status. */
export function describeGitHubError(error: unknown): string {
  const errors = graphqlErrorsOf(error);
  if (errors) {
    return redactSecrets(
      errors
        .map((e) => {
          const field = Array.isArray(e.path) && typeof e.path[0] === "string" ? `${e.path[0]}: ` : "";
          return `${field}${String(e.message ?? e.type ?? "unknown error")}`;
        })
        .join("; "),
    );
  }
  const status = httpStatusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return redactSecrets(status ? `HTTP ${status}: ${message}` : message);
}
