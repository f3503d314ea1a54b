// The Redis FenceStore: attestations, claim notes and the PR/branch indexes; multi-key writes are one Lua script.
import type { Cluster, Redis } from "ioredis";
import { z } from "zod";
import type { SubjectKey } from "../../domain/claim.js";
import {
  attestationTtlMs,
  ClaimNote,
  CrossLink,
  type CurrentToken,
  crossLinkTtlMs,
  type FenceEvidence,
  type FenceStore,
  IndexedPullRequest,
  maxClaimNotes,
  maxCrossLinks,
  maxShasPerGeneration,
  maxSubjectsPerBranch,
  type RepoKey,
  type SubjectLinks,
} from "../fence-store.js";
import { escapeGlob, FenceKeys } from "./keys.js";
import { callRedis, defineScript, literals, runScript, ScriptSet, tuple } from "./script-runner.js";

export interface RedisFenceStoreOptions {
  redis: Redis | Cluster;
  /** The same prefix as the claim store's; keys live under `${prefix}{i:N}:f:…` (one slot per installation). */
  keyPrefix: string;
}

const recordClaimScript = defineScript({
  name: "fenceRecordClaim",
  keys: ["notes", "branches", "links", "prs", "crossLinks"],
  args: ["generation", "note", "branch", "issue", "maxNotes", "maxSubjectsPerBranch", "ttlMs"],
  replies: tuple("crossLinks", "prs..."),
});

const rememberCrossLinkScript = defineScript({
  name: "fenceRememberCrossLink",
  keys: ["crossLinks"],
  args: ["link", "repoId", "number", "maxLinks", "ttlMs"],
  replies: literals(1),
});

const attestScript = defineScript({
  name: "fenceAttest",
  // The subject's sha → {generation: at} hash, the generation's shas scored by time, its sha → token digest hash.
  keys: ["attested", "generationShas", "attestedBy"],
  args: ["sha", "generation", "now", "maxShas", "ttlMs", "tokenDigest"],
  replies: literals(1),
});

const putPullRequestScript = defineScript({
  name: "fencePutPullRequest",
  keys: ["prs", "links"],
  args: ["number", "entry", "ttlMs"],
  replies: literals(1),
});

const removePullRequestScript = defineScript({
  name: "fenceRemovePullRequest",
  keys: ["prs", "links"],
  args: ["number"],
  replies: literals(1),
});

export const fenceScripts = new ScriptSet([
  recordClaimScript,
  rememberCrossLinkScript,
  attestScript,
  putPullRequestScript,
  removePullRequestScript,
]);

const AttestedAt = z.record(z.string().regex(/^\d+$/), z.number());
const IssueList = z.array(z.number().int().positive());
const PrNumbers = z.array(z.number().int().positive());
const CrossLinkList = z.array(CrossLink);

export class RedisFenceStore implements FenceStore {
  readonly #redis: Redis | Cluster;
  readonly #keys: FenceKeys;
  readonly #keyPrefix: string;

  constructor(options: RedisFenceStoreOptions) {
    this.#keys = new FenceKeys(options.keyPrefix);
    this.#keyPrefix = options.keyPrefix;
    this.#redis = options.redis;
    fenceScripts.register(this.#redis);
  }

  async recordClaim(key: SubjectKey, note: ClaimNote): Promise<SubjectLinks> {
    const valid = ClaimNote.parse(note);
    const prsKey = this.#keys.repo(key, "prs");
    const crossLinksKey = this.#keys.subject(key, "xlinks");
    const { crossLinks, prs } = await runScript(this.#redis, recordClaimScript, {
      keys: {
        notes: this.#keys.subject(key, "claims"),
        branches: this.#keys.repo(key, "branches"),
        links: this.#keys.repo(key, "links"),
        prs: prsKey,
        crossLinks: crossLinksKey,
      },
      args: {
        generation: valid.generation,
        note: JSON.stringify(valid),
        branch: valid.branch ?? "",
        issue: key.issue,
        maxNotes: maxClaimNotes,
        maxSubjectsPerBranch,
        ttlMs: attestationTtlMs,
      },
    });
    return {
      pullRequests: prs
        .map((entry) => parseStored(IndexedPullRequest, String(entry), prsKey))
        .sort((a, b) => a.number - b.number),
      crossLinks: parseCrossLinks(String(crossLinks ?? ""), crossLinksKey),
    };
  }

  async crossLinksOf(key: SubjectKey): Promise<CrossLink[]> {
    const crossLinksKey = this.#keys.subject(key, "xlinks");
    const raw = await callRedis(() => this.#redis.get(crossLinksKey));
    return parseCrossLinks(raw ?? "", crossLinksKey);
  }

  /**
   * Moves the cross links release 0.1.0 kept as documents (`<prefix>doc:cross-links:<installation>:<repoId>:<issue>`)
   * into this store: until they are moved, a transition of the subject would not re-run those PRs'
   * checks. Safe to repeat and to run on several replicas at once; answers how many subjects moved.
   */
  async adoptCrossLinkDocuments(): Promise<number> {
    const pattern = `${escapeGlob(this.#keyPrefix)}doc:cross-links:*`;
    const nodes = this.#redis.isCluster ? (this.#redis as Cluster).nodes("master") : [this.#redis as Redis];
    let moved = 0;
    for (const node of nodes) {
      let cursor = "0";
      do {
        const [next, keys] = await this.#call(() => node.scan(cursor, "MATCH", pattern, "COUNT", 1000));
        cursor = next;
        for (const documentKey of keys) {
          const subject = /:(\d+):(\d+):(\d+)$/.exec(documentKey);
          const raw = await this.#call(() => this.#redis.get(documentKey));
          const links = CrossLinkList.safeParse(raw === null ? null : safeJson(raw));
          if (subject && links.success) {
            const key = {
              installationId: Number(subject[1]),
              repoId: Number(subject[2]),
              issue: Number(subject[3]),
            };
            for (const link of links.data) await this.rememberCrossLink(key, link);
            moved++;
          }
          await this.#call(() => this.#redis.del(documentKey));
        }
      } while (cursor !== "0");
    }
    return moved;
  }

  async rememberCrossLink(key: SubjectKey, link: CrossLink): Promise<void> {
    const valid = CrossLink.parse(link);
    await runScript(this.#redis, rememberCrossLinkScript, {
      keys: { crossLinks: this.#keys.subject(key, "xlinks") },
      args: {
        link: JSON.stringify(valid),
        repoId: valid.repoId,
        number: valid.number,
        maxLinks: maxCrossLinks,
        ttlMs: crossLinkTtlMs,
      },
    });
  }

  async attest(
    key: SubjectKey,
    generation: number,
    sha: string,
    now: number,
    tokenDigest?: string,
  ): Promise<void> {
    await runScript(this.#redis, attestScript, {
      keys: {
        attested: this.#keys.subject(key, "att"),
        generationShas: this.#keys.subject(key, `att:${generation}`),
        attestedBy: this.#keys.subject(key, `att:${generation}:by`),
      },
      args: {
        sha,
        generation,
        now,
        maxShas: maxShasPerGeneration,
        ttlMs: attestationTtlMs,
        tokenDigest: tokenDigest ?? "",
      },
    });
  }

  async evidence(key: SubjectKey, sha: string, now: number, current?: CurrentToken): Promise<FenceEvidence> {
    const claimsKey = this.#keys.subject(key, "claims");
    const attKey = this.#keys.subject(key, "att");
    const byKey = current ? this.#keys.subject(key, `att:${current.generation}:by`) : undefined;
    const [notes, attested, by] = await this.#call(() =>
      Promise.all([
        this.#redis.hvals(claimsKey),
        this.#redis.hget(attKey, sha),
        byKey ? this.#redis.hget(byKey, sha) : Promise.resolve(null),
      ]),
    );
    const claims = notes
      .map((raw) => parseStored(ClaimNote, raw, claimsKey))
      .sort((a, b) => a.generation - b.generation);
    const at = attested === null ? {} : parseStored(AttestedAt, attested, attKey);
    // The current generation's attestation by a token a re-claim rotated out no longer counts.
    const rotatedOut = (generation: number) =>
      current?.generation === generation && by !== null && by !== current.tokenDigest;
    const attestedGenerations = Object.entries(at)
      .filter(([, when]) => when >= now - attestationTtlMs)
      .map(([generation]) => Number(generation))
      .filter((generation) => !rotatedOut(generation))
      .sort((a, b) => a - b);
    return { claims, attestedGenerations };
  }

  async subjectsForBranch(repo: RepoKey, branch: string): Promise<number[]> {
    const key = this.#keys.repo(repo, "branches");
    const raw = await this.#call(() => this.#redis.hget(key, branch));
    return raw === null ? [] : parseStored(IssueList, raw, key);
  }

  async putPullRequest(repo: RepoKey, pr: IndexedPullRequest): Promise<void> {
    const valid = IndexedPullRequest.parse(pr);
    await runScript(this.#redis, putPullRequestScript, {
      keys: { prs: this.#keys.repo(repo, "prs"), links: this.#keys.repo(repo, "links") },
      args: { number: valid.number, entry: JSON.stringify(valid), ttlMs: attestationTtlMs },
    });
  }

  async removePullRequest(repo: RepoKey, number: number): Promise<void> {
    await runScript(this.#redis, removePullRequestScript, {
      keys: { prs: this.#keys.repo(repo, "prs"), links: this.#keys.repo(repo, "links") },
      args: { number },
    });
  }

  async pullRequest(repo: RepoKey, number: number): Promise<IndexedPullRequest | null> {
    const key = this.#keys.repo(repo, "prs");
    const raw = await this.#call(() => this.#redis.hget(key, String(number)));
    return raw === null ? null : parseStored(IndexedPullRequest, raw, key);
  }

  async pullRequestsFor(key: SubjectKey): Promise<IndexedPullRequest[]> {
    const linksKey = this.#keys.repo(key, "links");
    const prsKey = this.#keys.repo(key, "prs");
    const raw = await this.#call(() => this.#redis.hget(linksKey, String(key.issue)));
    if (raw === null) return [];
    const numbers = parseStored(PrNumbers, raw, linksKey);
    if (numbers.length === 0) return [];
    const entries = await this.#call(() => this.#redis.hmget(prsKey, ...numbers.map(String)));
    return entries
      .flatMap((entry) => (entry === null ? [] : [parseStored(IndexedPullRequest, entry, prsKey)]))
      .sort((a, b) => a.number - b.number);
  }

  async markCommentHandled(installationId: number, commentId: number, ttlMs: number): Promise<boolean> {
    const key = this.#keys.comment(installationId, commentId);
    const reply = await this.#call(() => this.#redis.set(key, "1", "PX", ttlMs, "NX"));
    return reply === "OK";
  }

  async unmarkComment(installationId: number, commentId: number): Promise<void> {
    const key = this.#keys.comment(installationId, commentId);
    await this.#call(() => this.#redis.del(key));
  }

  async #call<T>(operation: () => Promise<T>): Promise<T> {
    return callRedis(operation);
  }
}

/** Values read back from Redis are validated like any other boundary; a corrupt one names its key. */
function parseStored<T extends z.ZodType>(schema: T, raw: string, key: string): z.infer<T> {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error(`corrupt fence data at ${key}: not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new Error(`corrupt fence data at ${key}: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

function parseCrossLinks(raw: string, key: string): CrossLink[] {
  return raw === "" ? [] : parseStored(CrossLinkList, raw, key);
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}
