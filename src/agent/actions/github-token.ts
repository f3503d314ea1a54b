// The agent's GitHub token, found the way `gh` finds it: GH_TOKEN, then GITHUB_TOKEN, then `gh auth token`.
import { execFile } from "node:child_process";

export type GithubTokenSource = "GH_TOKEN" | "GITHUB_TOKEN" | "gh auth token";

export interface GithubToken {
  token: string;
  source: GithubTokenSource;
}

/** `gh` answers from its own config file at once; a hung credential helper must not hang the CLI. */
const ghTimeoutMs = 5_000;

/** Every variable a GitHub token may sit in for this process or the commands it runs (gh's names too). */
const tokenVariables = [
  "GH_TOKEN",
  "GITHUB_TOKEN",
  "GH_ENTERPRISE_TOKEN",
  "GITHUB_ENTERPRISE_TOKEN",
] as const;

/**
 * The values of every token variable set: output, errors and a `run` command's handoff note hide them
 * all, whichever one the CLI itself uses (the command it runs may print another).
 */
export function tokensInEnv(env: NodeJS.ProcessEnv): string[] {
  return tokenVariables.flatMap((name) => env[name]?.trim() || []);
}

/** The token from the environment alone (no process spawned). */
export function githubTokenFromEnv(env: NodeJS.ProcessEnv): GithubToken | undefined {
  for (const source of ["GH_TOKEN", "GITHUB_TOKEN"] as const) {
    const token = env[source]?.trim();
    if (token) return { token, source };
  }
  return undefined;
}

/**
 * The environment's token, else the one `gh auth token` prints when `gh` is on PATH and logged in
 * (`--hostname <host>` for a GitHub Enterprise host, e.g. the one of the clone's remote).
 */
export async function resolveGithubToken(
  env: NodeJS.ProcessEnv,
  options: { host?: () => Promise<string | undefined> } = {},
): Promise<GithubToken | undefined> {
  const fromEnv = githubTokenFromEnv(env);
  if (fromEnv) return fromEnv;
  const host = await options.host?.();
  const token = await ghAuthToken(env, host && host !== "github.com" ? host : undefined);
  return token ? { token, source: "gh auth token" } : undefined;
}

/** Runs `gh auth token` without a shell; undefined when gh is missing, logged out, slow or prints nothing. */
function ghAuthToken(env: NodeJS.ProcessEnv, host: string | undefined): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      "gh",
      ["auth", "token", ...(host ? ["--hostname", host] : [])],
      { env, timeout: ghTimeoutMs, windowsHide: true, maxBuffer: 64 * 1024 },
      (error, stdout) => {
        const token = String(stdout ?? "").trim();
        // Its stderr is never shown: a logged-out gh is the ordinary "no token" case.
        resolve(error || !token || /\s/.test(token) ? undefined : token);
      },
    );
  });
}
