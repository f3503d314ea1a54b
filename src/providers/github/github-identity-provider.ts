// Who is calling and what the App may do for them: GitHub's answers, cached with an injected clock.

import { createHash } from "node:crypto";
import { request as octokitRequest } from "@octokit/request";
import { LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import type { GitHubUser, IdentityProvider, RepoPermission } from "../assignment-provider.js";
import { ConfigFileError } from "../assignment-provider.js";
import { type GitHubRequestKind, httpStatusOf, type OctokitLike } from "./octokit-like.js";
import { splitRepo } from "./split-repo.js";
import { TtlCache } from "./ttl-cache.js";

export const configPath = ".github/claim-hold.yml";

const minute = 60_000;
/** How long GitHub's answers are trusted; a revoked token or permission takes effect within this. */
export const positiveTtlMs = 5 * minute;
/** Short, so a newly created token, installation or collaborator works soon after. */
export const negativeTtlMs = 30_000;

export interface GitHubIdentityProviderOptions {
  /** REST base URL for calls made with the caller's own token (`https://api.github.com`, or GHE's `/api/v3`). */
  baseUrl?: string;
  /** The App's JWT-authenticated client (Probot's `app.auth()`). */
  appOctokit: () => Promise<OctokitLike>;
  /** An installation client (Probot's `app.auth(installationId)`). */
  octokitFor: (installationId: number) => Promise<OctokitLike>;
  now?: () => number;
  /** Called once for every HTTP request the provider makes (metrics, tests). */
  onRequest?: (kind: GitHubRequestKind) => void;
}

const UserResponse = z.object({
  login: z.string().min(1),
  id: z.number().int().positive(),
  node_id: z.string().min(1),
});
const InstallationResponse = z.object({ id: z.number().int().positive() });
const PermissionResponse = z.object({ permission: z.string(), role_name: z.string().optional() });

const knownRoles = new Set<RepoPermission>(["admin", "maintain", "write", "triage", "read"]);

/** `role_name` names maintain and triage; a custom role falls back to its base `permission`. */
export function permissionOf(response: { permission: string; role_name?: string }): RepoPermission {
  for (const candidate of [response.role_name, response.permission]) {
    if (candidate && knownRoles.has(candidate as RepoPermission)) return candidate as RepoPermission;
  }
  return "none";
}

type ConfigEntry =
  | { kind: "found"; value: unknown }
  | { kind: "none" }
  | { kind: "invalid"; error: ConfigFileError };

export { ConfigFileError };

export class GitHubIdentityProvider implements IdentityProvider {
  /** HTTP requests made so far, all calls together. */
  requests = 0;
  readonly #now: () => number;
  readonly #request: typeof octokitRequest;
  readonly #users: TtlCache<GitHubUser | null>;
  readonly #installations: TtlCache<number | null>;
  readonly #permissions: TtlCache<RepoPermission>;
  readonly #configs: TtlCache<ConfigEntry>;

  constructor(private readonly options: GitHubIdentityProviderOptions) {
    this.#now = options.now ?? Date.now;
    this.#request = octokitRequest.defaults({
      baseUrl: (options.baseUrl ?? "https://api.github.com").replace(/\/+$/, ""),
      headers: { "user-agent": "claim-hold" },
    });
    this.#users = new TtlCache(this.#now);
    this.#installations = new TtlCache(this.#now);
    this.#permissions = new TtlCache(this.#now);
    this.#configs = new TtlCache(this.#now);
  }

  /** Cached by the token's SHA-256, never by the token itself. */
  userForToken(token: string): Promise<GitHubUser | null> {
    // A value that cannot be a header would make fetch throw; it is simply not a token.
    if (!/^[\x21-\x7e]{1,1024}$/.test(token)) return Promise.resolve(null);
    const key = createHash("sha256").update(token).digest("hex");
    return this.#users.getOrLoad(
      key,
      async () => {
        try {
          const response = await this.#send("get-user", () =>
            this.#request("GET /user", { headers: { authorization: `token ${token}` } }),
          );
          const user = UserResponse.parse(response.data);
          return { login: user.login, id: user.id, nodeId: user.node_id };
        } catch (error) {
          if (httpStatusOf(error) === 401) return null;
          throw error;
        }
      },
      (user) => (user ? positiveTtlMs : negativeTtlMs),
    );
  }

  installationFor(repo: string): Promise<number | null> {
    const { owner, name } = splitRepo(repo);
    return this.#installations.getOrLoad(
      repo.toLowerCase(),
      async () => {
        const octokit = await this.options.appOctokit();
        try {
          const response = await this.#send("get-installation", () =>
            octokit.request("GET /repos/{owner}/{repo}/installation", { owner, repo: name }),
          );
          return InstallationResponse.parse(response.data).id;
        } catch (error) {
          if (httpStatusOf(error) === 404) return null;
          throw error;
        }
      },
      (id) => (id === null ? negativeTtlMs : positiveTtlMs),
    );
  }

  permission(installationId: number, repo: string, login: string): Promise<RepoPermission> {
    const { owner, name } = splitRepo(repo);
    return this.#permissions.getOrLoad(
      `${installationId}:${repo.toLowerCase()}:${login.toLowerCase()}`,
      async () => {
        const octokit = await this.options.octokitFor(installationId);
        try {
          const response = await this.#send("get-permission", () =>
            octokit.request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", {
              owner,
              repo: name,
              username: login,
            }),
          );
          return permissionOf(PermissionResponse.parse(response.data));
        } catch (error) {
          if (httpStatusOf(error) === 404) return "none";
          throw error;
        }
      },
      (permission) => (permission === "none" ? negativeTtlMs : positiveTtlMs),
    );
  }

  /**
   * The parsed YAML of the repository's file, else of the owner's `.github` repository (the org-wide
   * default, as Probot's config loader reads it), else null. An empty file reads as `{}`.
   * @throws ConfigFileError when the file is not valid YAML (cached like a valid file).
   */
  async repoConfig(installationId: number, repo: string): Promise<unknown> {
    const { owner, name } = splitRepo(repo);
    const entry = await this.#configs.getOrLoad(
      `${installationId}:${repo.toLowerCase()}`,
      async () => {
        const octokit = await this.options.octokitFor(installationId);
        const own = await this.#readConfigFile(octokit, owner, name);
        if (own.kind !== "none" || name.toLowerCase() === ".github") return own;
        return this.#readConfigFile(octokit, owner, ".github");
      },
      () => positiveTtlMs,
    );
    if (entry.kind === "invalid") throw entry.error;
    return entry.kind === "found" ? entry.value : null;
  }

  /** Call on a push that touches the file; a change to `owner/.github` drops the owner's every entry. */
  invalidateConfig(repo: string): void {
    const { owner, name } = splitRepo(repo);
    const lower = repo.toLowerCase();
    const ownerPrefix = `${owner.toLowerCase()}/`;
    this.#configs.deleteWhere((key) => {
      const keyRepo = key.slice(key.indexOf(":") + 1);
      return name.toLowerCase() === ".github" ? keyRepo.startsWith(ownerPrefix) : keyRepo === lower;
    });
  }

  /** Call on `installation.deleted`/`installation_repositories` so a change is seen at once. */
  invalidateInstallation(repo: string): void {
    this.#installations.delete(repo.toLowerCase());
  }

  async #readConfigFile(octokit: OctokitLike, owner: string, repo: string): Promise<ConfigEntry> {
    let data: unknown;
    try {
      const response = await this.#send("get-config", () =>
        octokit.request(`GET /repos/{owner}/{repo}/contents/${configPath}`, {
          owner,
          repo,
          headers: { accept: "application/vnd.github.raw+json" },
        }),
      );
      data = response.data;
    } catch (error) {
      if (httpStatusOf(error) === 404) return { kind: "none" };
      throw error;
    }
    const text = fileText(data);
    if (text === null) {
      return { kind: "invalid", error: new ConfigFileError(`${owner}/${repo}`, undefined, "not a file") };
    }
    const lineCounter = new LineCounter();
    const document = parseDocument(text, { prettyErrors: false, lineCounter });
    const problem = document.errors[0];
    if (problem) {
      const line = lineCounter.linePos(problem.pos[0]).line;
      return { kind: "invalid", error: new ConfigFileError(`${owner}/${repo}`, line, problem.message) };
    }
    return { kind: "found", value: document.toJS({ maxAliasCount: 100 }) ?? {} };
  }

  async #send<T>(kind: GitHubRequestKind, call: () => Promise<T>): Promise<T> {
    this.requests++;
    this.options.onRequest?.(kind);
    return call();
  }
}

/** The raw media type answers with text; a client that ignores it gets the JSON with base64 content. */
function fileText(data: unknown): string | null {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
  const file = data as { type?: unknown; content?: unknown; encoding?: unknown } | null;
  if (file?.type === "file" && typeof file.content === "string" && file.encoding === "base64") {
    return Buffer.from(file.content, "base64").toString("utf8");
  }
  return null;
}
