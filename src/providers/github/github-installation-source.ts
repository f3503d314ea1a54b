// The GitHub InstallationSource: `GET /app/installations` with the App's JWT, every page; one installation's account login.
import { z } from "zod";
import type { InstallationSource } from "../installation-source.js";
import { describeGitHubError } from "./github-errors.js";
import type { OctokitLike } from "./octokit-like.js";

export interface GitHubInstallationSourceOptions {
  /** The App's JWT-authenticated client (Probot's `app.auth()` without an installation id). */
  appOctokit: () => Promise<OctokitLike>;
  /** Called once for every HTTP request made (metrics, tests). */
  onRequest?: (kind: "list-installations" | "installation-account") => void;
}

const perPage = 100;
/** 100 pages of 100: far past any real App; a runaway listing stops here instead of looping. */
const maxPages = 100;

const InstallationPage = z.array(z.object({ id: z.number().int().positive() }));
const InstallationAccount = z.object({ account: z.object({ login: z.string().min(1) }).nullable() });

export class GitHubInstallationSource implements InstallationSource {
  constructor(private readonly options: GitHubInstallationSourceOptions) {}

  async listInstallations(): Promise<number[]> {
    const octokit = await this.options.appOctokit();
    const ids = new Set<number>();
    for (let page = 1; page <= maxPages; page++) {
      this.options.onRequest?.("list-installations");
      let data: unknown;
      try {
        ({ data } = await octokit.request("GET /app/installations", { per_page: perPage, page }));
      } catch (error) {
        throw new Error(
          `failed to list the App's installations (page ${page}): ${describeGitHubError(error)}`,
          {
            cause: error,
          },
        );
      }
      const batch = InstallationPage.parse(data);
      for (const installation of batch) ids.add(installation.id);
      if (batch.length < perPage) break;
    }
    return [...ids].sort((a, b) => a - b);
  }

  /** The login of the account (user or organization) the App is installed on; null when GitHub names none. */
  async accountLogin(installationId: number): Promise<string | null> {
    const octokit = await this.options.appOctokit();
    this.options.onRequest?.("installation-account");
    let data: unknown;
    try {
      ({ data } = await octokit.request("GET /app/installations/{installation_id}", {
        installation_id: installationId,
      }));
    } catch (error) {
      throw new Error(
        `failed to read installation ${installationId}'s account: ${describeGitHubError(error)}`,
        { cause: error },
      );
    }
    return InstallationAccount.parse(data).account?.login ?? null;
  }
}
