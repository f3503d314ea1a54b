// One ensure pass: on every repository the bot account administers, exactly one App hook as `planGiteaWebhook` wants it.
import type { Logger } from "pino";
import type { GiteaClient } from "./gitea-client.js";
import { hookSecretOf } from "./gitea-hook-secret.js";
import { type GiteaOwnRepository, giteaPageSize } from "./gitea-schemas.js";
import { type HookAction, planGiteaWebhook } from "./plan-gitea-webhook.js";

/** Where the App's hooks point and the instance secret each repository's own is derived from (never logged). */
export interface WantedHooks {
  endpoint: string;
  instanceSecret: string;
}

export interface EnsureWebhooksReport {
  /** Repositories the bot account administers (the others are `notAdmin`). */
  repositories: number;
  created: number;
  edited: number;
  deleted: number;
  unchanged: number;
  /** Repositories the bot can see but not administer: their hooks cannot be read or written. */
  notAdmin: number;
  /** Repositories whose hooks could not be read or written this pass (retried at the next). */
  failed: number;
}

/**
 * 1. every page of `GET /user/repos`, split by `permissions.admin`;
 * 2. per administered repository, every page of its hooks, planned with that repository's own secret
 *    (`hookSecretOf`): a hook keyed otherwise has another fingerprint and is re-keyed once;
 * 3. the planned writes (the client's write limiter spaces them). A repository's failure is logged
 *    without the secret (no request body is ever part of an error) and left for the next pass.
 * An aborted `signal` stops the pass between repositories and between writes.
 * @throws when the repository list itself cannot be read, or `signal` aborts (its reason).
 */
export async function ensureGiteaWebhooks(
  deps: { client: GiteaClient; log: Logger },
  want: WantedHooks,
  signal?: AbortSignal,
): Promise<EnsureWebhooksReport> {
  const report: EnsureWebhooksReport = {
    repositories: 0,
    created: 0,
    edited: 0,
    deleted: 0,
    unchanged: 0,
    notAdmin: 0,
    failed: 0,
  };
  for (const repo of await listAll((page) => deps.client.listMyRepositoryRights(page), signal)) {
    signal?.throwIfAborted();
    if (!repo.permissions?.admin) {
      report.notAdmin++;
      continue;
    }
    report.repositories++;
    try {
      const actions = await ensureOne(deps.client, repo, want, signal);
      if (actions.length === 0) report.unchanged++;
      for (const action of actions) {
        if (action.kind === "create") report.created++;
        else if (action.kind === "edit") report.edited++;
        else report.deleted++;
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      report.failed++;
      deps.log.warn(
        { repository: repo.full_name, err: error },
        "could not ensure the App's Gitea webhook; retried at the next pass",
      );
    }
  }
  return report;
}

async function ensureOne(
  client: GiteaClient,
  repo: GiteaOwnRepository,
  want: WantedHooks,
  signal: AbortSignal | undefined,
) {
  const [owner = "", name = ""] = repo.full_name.split("/");
  const hooks = await listAll((page) => client.listHooks(owner, name, page), signal);
  const secret = hookSecretOf(want.instanceSecret, repo.id);
  const actions = planGiteaWebhook(hooks, { endpoint: want.endpoint, secret });
  for (const action of actions) {
    signal?.throwIfAborted();
    await apply(client, owner, name, action);
  }
  return actions;
}

function apply(client: GiteaClient, owner: string, repo: string, action: HookAction) {
  switch (action.kind) {
    case "create":
      return client.createHook(owner, repo, action.hook);
    case "edit":
      return client.editHook(owner, repo, action.id, action.hook);
    case "delete":
      return client.deleteHook(owner, repo, action.id);
  }
}

/** Pages until one comes back short (Gitea answers at most `giteaPageSize`). */
async function listAll<T>(read: (page: number) => Promise<T[]>, signal?: AbortSignal): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; ; page++) {
    signal?.throwIfAborted();
    const items = await read(page);
    all.push(...items);
    if (items.length < giteaPageSize) return all;
  }
}
