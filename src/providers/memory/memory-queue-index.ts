// The embedded candidate index: per repository, each open issue's facts, its ranking and the pick reservations.
import { rankCandidates, rankingFingerprint } from "../../domain/queue-ranking.js";
import {
  type CandidateFacts,
  type CandidatePage,
  type IndexedCandidate,
  maxCandidatePage,
  type QueueRanking,
  type QueueRepo,
  type QueueStore,
} from "../queue-store.js";

interface RepoIndex {
  facts: Map<number, CandidateFacts>;
  refreshedAt: number | null;
  reservations: Map<number, { owner: string; expiresAt: number }>;
  /** The ranking of the last page read, with its order cached until a write or a ranking change. */
  ranked?: { fingerprint: string; order: CandidateFacts[] };
}

const key = (repo: QueueRepo) => `${repo.installationId}:${repo.repoId}`;

function copy(facts: CandidateFacts): CandidateFacts {
  return structuredClone(facts);
}

/** The same semantics as the Redis store's queue scripts (test/queue-store-contract.test.ts runs both). */
export class MemoryQueueIndex implements QueueStore {
  readonly #repos = new Map<string, RepoIndex>();
  /** `installationId:lower-cased owner/name` → repository id. */
  readonly #names = new Map<string, number>();

  #repo(repo: QueueRepo): RepoIndex {
    let index = this.#repos.get(key(repo));
    if (!index) {
      index = { facts: new Map(), refreshedAt: null, reservations: new Map() };
      this.#repos.set(key(repo), index);
    }
    return index;
  }

  #changed(index: RepoIndex): void {
    delete index.ranked;
  }

  async putCandidate(repo: QueueRepo, facts: CandidateFacts): Promise<void> {
    this.#remember(repo);
    const index = this.#repo(repo);
    index.facts.set(facts.issue, copy(facts));
    this.#changed(index);
  }

  async patchCandidate(
    repo: QueueRepo,
    issue: number,
    patch: Partial<Omit<CandidateFacts, "issue">>,
  ): Promise<void> {
    const index = this.#repo(repo);
    const current = index.facts.get(issue);
    if (!current) return;
    const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    index.facts.set(issue, copy({ ...current, ...defined, issue }));
    this.#changed(index);
  }

  async dropCandidate(repo: QueueRepo, issue: number): Promise<void> {
    const index = this.#repo(repo);
    index.facts.delete(issue);
    index.reservations.delete(issue);
    this.#changed(index);
  }

  async dropBlocker(repo: QueueRepo, blocker: string): Promise<void> {
    const index = this.#repo(repo);
    for (const [issue, facts] of index.facts) {
      if (facts.blockers.includes(blocker)) {
        index.facts.set(issue, { ...facts, blockers: facts.blockers.filter((b) => b !== blocker) });
      }
    }
    this.#changed(index);
  }

  async replaceCandidates(repo: QueueRepo, facts: CandidateFacts[], refreshedAt: number): Promise<void> {
    this.#remember(repo);
    const index = this.#repo(repo);
    index.facts = new Map(facts.map((f) => [f.issue, copy(f)]));
    for (const issue of index.reservations.keys())
      if (!index.facts.has(issue)) index.reservations.delete(issue);
    index.refreshedAt = refreshedAt;
    this.#changed(index);
  }

  async candidate(repo: QueueRepo, issue: number): Promise<CandidateFacts | null> {
    const facts = this.#repos.get(key(repo))?.facts.get(issue);
    return facts ? copy(facts) : null;
  }

  async indexedCandidate(repo: QueueRepo, issue: number): Promise<IndexedCandidate> {
    return {
      refreshedAt: this.#repos.get(key(repo))?.refreshedAt ?? null,
      candidate: await this.candidate(repo, issue),
    };
  }

  async repoOf(installationId: number, repo: string): Promise<QueueRepo | null> {
    const repoId = this.#names.get(`${installationId}:${repo.toLowerCase()}`);
    return repoId === undefined ? null : { installationId, repoId, repo };
  }

  #remember(repo: QueueRepo): void {
    this.#names.set(`${repo.installationId}:${repo.repo.toLowerCase()}`, repo.repoId);
  }

  async refreshedAt(repo: QueueRepo): Promise<number | null> {
    return this.#repos.get(key(repo))?.refreshedAt ?? null;
  }

  async rankedCandidates(
    repo: QueueRepo,
    ranking: QueueRanking,
    page: { offset: number; limit: number },
  ): Promise<CandidatePage> {
    const index = this.#repo(repo);
    const fingerprint = rankingFingerprint(ranking);
    if (index.ranked?.fingerprint !== fingerprint) {
      index.ranked = { fingerprint, order: rankCandidates([...index.facts.values()], ranking) };
    }
    const offset = Math.max(0, page.offset);
    const limit = Math.min(Math.max(0, page.limit), maxCandidatePage);
    return {
      candidates: index.ranked.order.slice(offset, offset + limit).map(copy),
      total: index.facts.size,
      refreshedAt: index.refreshedAt,
    };
  }

  async reserve(
    repo: QueueRepo,
    issues: number[],
    owner: string,
    ttlMs: number,
    now: number,
  ): Promise<number | null> {
    const { reservations } = this.#repo(repo);
    for (const issue of issues) {
      const held = reservations.get(issue);
      if (held && held.owner !== owner && held.expiresAt > now) continue;
      reservations.set(issue, { owner, expiresAt: now + ttlMs });
      return issue;
    }
    return null;
  }

  async unreserve(repo: QueueRepo, issue: number, owner: string): Promise<void> {
    const { reservations } = this.#repo(repo);
    if (reservations.get(issue)?.owner === owner) reservations.delete(issue);
  }

  /** Forgets every repository of an installation (App uninstalled). */
  purge(installationId: number): void {
    for (const id of this.#repos.keys()) if (id.startsWith(`${installationId}:`)) this.#repos.delete(id);
    for (const name of this.#names.keys())
      if (name.startsWith(`${installationId}:`)) this.#names.delete(name);
  }
}
