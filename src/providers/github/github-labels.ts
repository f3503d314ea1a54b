// The managed labels on GitHub: their names per repository, a node-id cache, and the lookups and creates behind it.
import { GitHubWriteError } from "../assignment-provider.js";
import type { RequestCounter, SendRequest } from "./counted-requests.js";
import { describeGitHubError } from "./github-errors.js";
import {
  RESOLVE_LABEL_SLOTS,
  RESOLVE_LABELS_QUERY,
  type ResolveLabelsResponse,
  resolveLabelsVariables,
} from "./graphql/index.js";
import { httpStatusOf, type OctokitLike } from "./octokit-like.js";
import { splitRepo } from "./split-repo.js";

export interface RepoRef {
  installationId: number;
  /** `owner/name` as the caller wrote it. */
  repo: string;
}

export interface ManagedLabelNames {
  claimed: string;
  stale: string;
}

export interface LabelSpec {
  name: string;
  color: string;
  description: string;
}

export const defaultLabelNames: ManagedLabelNames = { claimed: "agent:claimed", stale: "agent:stale" };

/** Colours and descriptions of the managed labels, for `ensureLabels` and for labels `apply` must create. */
export function managedLabelSpecs(names: ManagedLabelNames): LabelSpec[] {
  return [
    { name: names.claimed, color: "1d76db", description: "A live agent claim holds this issue (claim-hold)" },
    {
      name: names.stale,
      color: "fbca04",
      description: "The agent holding this issue stopped heartbeating (claim-hold)",
    },
  ];
}

/** The labels that ask a person to look: a holder needs help, or a subject spent its budget. */
export interface AttentionLabelNames {
  needsHuman: string;
  overBudget: string;
}

export const defaultAttentionLabelNames: AttentionLabelNames = {
  needsHuman: "agent:needs-human",
  overBudget: "agent:over-budget",
};

/** Colours and descriptions of the attention labels, created with the managed ones on installation. */
export function attentionLabelSpecs(names: AttentionLabelNames): LabelSpec[] {
  return [
    {
      name: names.needsHuman,
      color: "d93f0b",
      description: "The agent holding this issue asked for a person (claim-hold)",
    },
    {
      name: names.overBudget,
      color: "b60205",
      description:
        "This issue's agent spend reached its budget; claims/next skips it until removed (claim-hold)",
    },
  ];
}

export type LabelNamesSource =
  | ManagedLabelNames
  | ((ref: RepoRef) => ManagedLabelNames | Promise<ManagedLabelNames>);

export class RepositoryLabels {
  /** Per repository (`installationId:owner/name`, lower case): label name (lower case) -> node id. */
  readonly #labelIds = new Map<string, Map<string, string>>();
  /** Label specs seen by `ensure`, so a label `apply` has to create gets the same colour. */
  readonly #labelSpecs = new Map<string, LabelSpec>();

  constructor(
    private readonly names: LabelNamesSource | undefined,
    private readonly send: SendRequest,
  ) {}

  async namesFor(ref: RepoRef): Promise<ManagedLabelNames> {
    const labels = this.names ?? defaultLabelNames;
    return typeof labels === "function" ? labels(ref) : labels;
  }

  /** Node ids GitHub returned along with a read, kept so a later write needs no lookup. */
  remember(ref: RepoRef, labels: readonly ({ name: string; id: string } | null | undefined)[]): void {
    const cache = this.#cache(ref);
    for (const label of labels) {
      if (label) cache.set(label.name.toLowerCase(), label.id);
    }
  }

  /** A label deleted and re-created behind the cache's back fails the write: its ids are forgotten. */
  forget(ref: RepoRef): void {
    this.#labelIds.delete(repoKey(ref));
  }

  /** Name (lower case) -> node id for every given label that exists, looking up only the uncached ones. */
  async resolveIds(
    octokit: OctokitLike,
    ref: RepoRef,
    names: string[],
    counter: RequestCounter,
  ): Promise<Map<string, string>> {
    const cache = this.#cache(ref);
    const missing = [...new Set(names.map((n) => n.toLowerCase()))].filter((n) => !cache.has(n));
    const { owner, name } = splitRepo(ref.repo);
    for (let start = 0; start < missing.length; start += RESOLVE_LABEL_SLOTS) {
      const chunk = missing.slice(start, start + RESOLVE_LABEL_SLOTS);
      const data = await this.send(counter, "resolve-labels", () =>
        octokit.graphql<ResolveLabelsResponse>(
          RESOLVE_LABELS_QUERY,
          resolveLabelsVariables(owner, name, chunk),
        ),
      );
      chunk.forEach((requested, slot) => {
        const label = data.repository?.[`label${slot as 0 | 1 | 2 | 3}`];
        if (label) cache.set(requested, label.id);
      });
    }
    const ids = new Map<string, string>();
    for (const n of names) {
      const id = cache.get(n.toLowerCase());
      if (id) ids.set(n.toLowerCase(), id);
    }
    return ids;
  }

  /** Creates each label where missing (safe to repeat) and caches its node id. */
  async ensure(octokit: OctokitLike, ref: RepoRef, labels: LabelSpec[]): Promise<void> {
    const { owner, name: repo } = splitRepo(ref.repo);
    const counter: RequestCounter = { requests: 0 };
    for (const label of labels) {
      this.#labelSpecs.set(label.name.toLowerCase(), label);
      try {
        const found = await this.#get(octokit, ref, label.name, counter);
        const nodeId = found ?? (await this.create(octokit, ref, label.name, counter));
        this.#cache(ref).set(label.name.toLowerCase(), nodeId);
      } catch (error) {
        if (error instanceof GitHubWriteError) throw error;
        throw new GitHubWriteError(
          `failed to ensure label "${label.name}" on ${owner}/${repo}: ${describeGitHubError(error)}`,
          httpStatusOf(error),
          { cause: error },
        );
      }
    }
  }

  /** Creates the label (with the spec `ensure` saw, the managed default, or grey) and answers its node id. */
  async create(octokit: OctokitLike, ref: RepoRef, label: string, counter: RequestCounter): Promise<string> {
    const { owner, name: repo } = splitRepo(ref.repo);
    const spec = this.#labelSpecs.get(label.toLowerCase()) ??
      [
        ...managedLabelSpecs(await this.namesFor(ref)),
        ...attentionLabelSpecs(defaultAttentionLabelNames),
      ].find((s) => s.name.toLowerCase() === label.toLowerCase()) ?? {
        name: label,
        color: "ededed",
        description: "",
      };
    try {
      const response = await this.send(counter, "create-label", () =>
        octokit.request("POST /repos/{owner}/{repo}/labels", {
          owner,
          repo,
          name: label,
          color: spec.color.replace(/^#/, ""),
          description: spec.description,
        }),
      );
      const nodeId = nodeIdOf(response.data);
      this.#cache(ref).set(label.toLowerCase(), nodeId);
      return nodeId;
    } catch (error) {
      // 422: someone created it since we looked (another replica, a human); use theirs.
      if (httpStatusOf(error) !== 422) throw error;
      const existing = await this.#get(octokit, ref, label, counter);
      if (!existing) throw error;
      this.#cache(ref).set(label.toLowerCase(), existing);
      return existing;
    }
  }

  /** The label's node id, or null when the repository has no such label. */
  async #get(octokit: OctokitLike, ref: RepoRef, label: string, counter: RequestCounter) {
    const { owner, name: repo } = splitRepo(ref.repo);
    try {
      const response = await this.send(counter, "get-label", () =>
        octokit.request("GET /repos/{owner}/{repo}/labels/{name}", { owner, repo, name: label }),
      );
      return nodeIdOf(response.data);
    } catch (error) {
      if (httpStatusOf(error) === 404) return null;
      throw error;
    }
  }

  #cache(ref: RepoRef): Map<string, string> {
    const key = repoKey(ref);
    let cache = this.#labelIds.get(key);
    if (!cache) {
      cache = new Map();
      this.#labelIds.set(key, cache);
    }
    return cache;
  }
}

function repoKey(ref: RepoRef): string {
  return `${ref.installationId}:${ref.repo.toLowerCase()}`;
}

function nodeIdOf(data: unknown): string {
  const nodeId = (data as { node_id?: unknown } | null)?.node_id;
  if (typeof nodeId !== "string") throw new Error("GitHub returned a label without a node_id");
  return nodeId;
}
