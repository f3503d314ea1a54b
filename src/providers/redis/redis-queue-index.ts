// The Redis candidate index: per repository a sorted set in ranking order, the facts, reservations and meta, all under the installation's hash tag.
import type { Cluster, Redis } from "ioredis";
import { z } from "zod";
import { defaultQueueRanking } from "../../config/queue-ranking.js";
import { rankingFingerprint } from "../../domain/queue-ranking.js";
import {
  type CandidateFacts,
  type CandidatePage,
  type IndexedCandidate,
  maxCandidatePage,
  type QueueRanking,
  type QueueRepo,
  type QueueStore,
} from "../queue-store.js";
import type { StoreKeys } from "./keys.js";
import { callRedis, runScript } from "./script-runner.js";
import {
  queueCandidateScript,
  queueDropBlockerScript,
  queueDropScript,
  queuePageScript,
  queuePatchScript,
  queuePutScript,
  queueReplaceScript,
  queueReserveScript,
  queueUnreserveScript,
} from "./store-scripts.js";

/** Lua's cjson writes an empty array back as `{}`: read either as an empty list. */
const list = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (value) =>
      value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0
        ? []
        : value,
    z.array(item),
  );

const StoredFacts = z.object({
  issue: z.number().int().positive(),
  title: z.string(),
  createdAt: z.number(),
  labels: list(z.string()),
  assignees: list(z.string()),
  blockers: list(z.string()),
  openSubIssues: z.number().int().min(0),
  closingPullRequests: list(
    z.object({ number: z.number().int().positive(), headRefName: z.string(), author: z.string().nullable() }),
  ),
});

/** Issue numbers as members: zero-padded, so equal scores order by number as Redis compares bytes. */
export function queueMember(issue: number): string {
  return String(issue).padStart(10, "0");
}

const defaultRanking = rankingFingerprint(defaultQueueRanking);

/** The Redis stores' `queue` member; its scripts are registered with the claim store's. */
export class RedisQueueIndex implements QueueStore {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly keys: StoreKeys,
  ) {}

  async putCandidate(repo: QueueRepo, facts: CandidateFacts): Promise<void> {
    await runScript(this.redis, queuePutScript, {
      keys: {
        ...this.#keys(repo, "order", "facts", "meta"),
        names: this.keys.queueNames(repo.installationId),
      },
      args: {
        member: queueMember(facts.issue),
        facts: JSON.stringify(factsOf(facts)),
        defaultRanking,
        ...this.#name(repo),
      },
    });
  }

  async patchCandidate(
    repo: QueueRepo,
    issue: number,
    patch: Partial<Omit<CandidateFacts, "issue">>,
  ): Promise<void> {
    const { issue: _ignored, ...fields } = patch as Partial<CandidateFacts>;
    await runScript(this.redis, queuePatchScript, {
      keys: this.#keys(repo, "order", "facts", "meta"),
      args: { member: queueMember(issue), patch: JSON.stringify(fields), defaultRanking },
    });
  }

  async dropCandidate(repo: QueueRepo, issue: number): Promise<void> {
    await runScript(this.redis, queueDropScript, {
      keys: { ...this.#keys(repo, "order", "facts"), reservations: this.keys.queue(repo, "res") },
      args: { member: queueMember(issue) },
    });
  }

  async dropBlocker(repo: QueueRepo, blocker: string): Promise<void> {
    // cjson writes "/" as "\/": the part after the last slash is found in either spelling.
    const needle = blocker.slice(blocker.lastIndexOf("/") + 1);
    await runScript(this.redis, queueDropBlockerScript, {
      keys: { facts: this.keys.queue(repo, "facts") },
      args: { blocker, needle },
    });
  }

  async replaceCandidates(repo: QueueRepo, facts: CandidateFacts[], refreshedAt: number): Promise<void> {
    await runScript(this.redis, queueReplaceScript, {
      keys: {
        ...this.#keys(repo, "order", "facts", "meta"),
        reservations: this.keys.queue(repo, "res"),
        names: this.keys.queueNames(repo.installationId),
      },
      args: { refreshedAt, defaultRanking, ...this.#name(repo) },
      rest: facts.flatMap((f) => [queueMember(f.issue), JSON.stringify(factsOf(f))]),
    });
  }

  async refreshedAt(repo: QueueRepo): Promise<number | null> {
    const key = this.keys.queue(repo, "meta");
    const raw = await callRedis(() => this.redis.hget(key, "refreshedAt"));
    return raw === null ? null : Number(raw);
  }

  async rankedCandidates(
    repo: QueueRepo,
    ranking: QueueRanking,
    page: { offset: number; limit: number },
  ): Promise<CandidatePage> {
    const reply = await runScript(this.redis, queuePageScript, {
      keys: this.#keys(repo, "order", "facts", "meta"),
      args: {
        ranking: rankingFingerprint(ranking),
        offset: Math.max(0, Math.floor(page.offset)),
        limit: Math.min(Math.max(0, Math.floor(page.limit)), maxCandidatePage),
      },
    });
    const { refreshedAt, total, facts } = reply;
    const factsKey = this.keys.queue(repo, "facts");
    return {
      candidates: facts.map((json) => parseFacts(String(json), factsKey)),
      total: Number(total),
      refreshedAt: refreshedAt === "" ? null : Number(refreshedAt),
    };
  }

  async reserve(
    repo: QueueRepo,
    issues: number[],
    owner: string,
    ttlMs: number,
    now: number,
  ): Promise<number | null> {
    if (issues.length === 0) return null;
    const { member } = await runScript(this.redis, queueReserveScript, {
      keys: { reservations: this.keys.queue(repo, "res") },
      args: { owner, ttlMs, now },
      rest: issues.map(queueMember),
    });
    return member === null ? null : Number(member);
  }

  async unreserve(repo: QueueRepo, issue: number, owner: string): Promise<void> {
    await runScript(this.redis, queueUnreserveScript, {
      keys: { reservations: this.keys.queue(repo, "res") },
      args: { member: queueMember(issue), owner },
    });
  }

  async candidate(repo: QueueRepo, issue: number): Promise<CandidateFacts | null> {
    const key = this.keys.queue(repo, "facts");
    const json = await callRedis(() => this.redis.hget(key, queueMember(issue)));
    return json === null ? null : parseFacts(json, key);
  }

  async indexedCandidate(repo: QueueRepo, issue: number): Promise<IndexedCandidate> {
    const { refreshedAt, facts } = await runScript(this.redis, queueCandidateScript, {
      keys: this.#keys(repo, "meta", "facts"),
      args: { member: queueMember(issue) },
    });
    const json = String(facts);
    return {
      refreshedAt: refreshedAt === "" ? null : Number(refreshedAt),
      candidate: json === "" ? null : parseFacts(json, this.keys.queue(repo, "facts")),
    };
  }

  async repoOf(installationId: number, repo: string): Promise<QueueRepo | null> {
    const id = await callRedis(() =>
      this.redis.hget(this.keys.queueNames(installationId), repo.toLowerCase()),
    );
    return id === null ? null : { installationId, repoId: Number(id), repo };
  }

  #name(repo: QueueRepo) {
    return { repoName: repo.repo.toLowerCase(), repoId: repo.repoId };
  }

  #keys<N extends "order" | "facts" | "meta">(repo: QueueRepo, ...names: N[]): Record<N, string> {
    return Object.fromEntries(names.map((name) => [name, this.keys.queue(repo, name)])) as Record<N, string>;
  }
}

/** Only the fields of `CandidateFacts`, in one order (a caller's extra fields are not stored). */
function factsOf(f: CandidateFacts): CandidateFacts {
  return {
    issue: f.issue,
    title: f.title,
    createdAt: f.createdAt,
    labels: f.labels,
    assignees: f.assignees,
    blockers: f.blockers,
    openSubIssues: f.openSubIssues,
    closingPullRequests: f.closingPullRequests.map((pr) => ({
      number: pr.number,
      headRefName: pr.headRefName,
      author: pr.author,
    })),
  };
}

function parseFacts(json: string, key: string): CandidateFacts {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error(`corrupt candidate at ${key}: not JSON`);
  }
  const parsed = StoredFacts.safeParse(value);
  if (!parsed.success) throw new Error(`corrupt candidate at ${key}: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}
