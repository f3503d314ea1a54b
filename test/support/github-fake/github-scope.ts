// The nock scope every GitHub fake builds on: api.github.com, the test tokens, a request log, exact body matching.
import { isDeepStrictEqual } from "node:util";
import nock from "nock";
import { ProbotOctokit } from "probot";

// Interception is off until a test loads these fakes (test/support/setup.ts says why).
if (!nock.isActive()) nock.activate();

export const githubApiUrl = "https://api.github.com";
export const installationToken = "ghs_installationtoken0123456789";
export const appJwt = "ghs_appclienttoken0123456789abcdef";

/** Counts every request that reaches the fake GitHub, by kind, so tests can pin request budgets exactly. */
export class GitHubRequestLog {
  readonly entries: { method: string; path: string; body: unknown }[] = [];
  count(): number {
    return this.entries.length;
  }
  since(mark: number) {
    return this.entries.slice(mark);
  }
  record(method: string, path: string, body: unknown) {
    this.entries.push({ method, path, body });
  }
}

/** A real Probot client (plugins and all) with retries and throttling off, so each call is one request. */
export function testOctokit(token = installationToken): InstanceType<typeof ProbotOctokit> {
  return new ProbotOctokit({
    auth: { token },
    baseUrl: githubApiUrl,
    retry: { enabled: false },
    throttle: { enabled: false },
  });
}

/** Matches a JSON request body exactly: no missing, extra or different field. */
export function exactBody(expected: unknown): (body: unknown) => boolean {
  return (body) => isDeepStrictEqual(body, expected);
}

/**
 * A scope on api.github.com. With `log`, every request it answers is recorded there; with `token`,
 * only requests authorized by `token <token>` match (`reqheaders`: the same, checked by nock for the scope).
 */
export function githubScope(
  options: { log?: GitHubRequestLog; token?: string; reqheaders?: Record<string, string> } = {},
): nock.Scope {
  const scope = nock(githubApiUrl, options.reqheaders ? { reqheaders: options.reqheaders } : {});
  const { log } = options;
  if (log)
    scope.on("request", (_req: unknown, interceptor: { method: string; path: string }, body: string) => {
      let parsed: unknown = body;
      try {
        parsed = body ? JSON.parse(body) : undefined;
      } catch {}
      log.record(interceptor.method, interceptor.path, parsed);
    });
  return options.token ? scope.matchHeader("authorization", `token ${options.token}`) : scope;
}

/** Tells the two kinds of helper call apart: the App-level ones take the request log first. */
export function isLog(value: unknown): value is GitHubRequestLog {
  return value instanceof GitHubRequestLog;
}
