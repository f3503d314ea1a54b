// The Redis FenceStore: attestations, claim notes and the PR/branch indexes; multi-key writes are one Lua script.
import type { Cluster, Redis } from "ioredis";
import { z } from "zod";
import type { SubjectKey } from "../../domain/claim.js";
import {
  attestationTtlMs,
  ClaimNote,
  type CurrentToken,
  type FenceEvidence,
  type FenceStore,
  IndexedPullRequest,
  maxClaimNotes,
  maxShasPerGeneration,
  maxSubjectsPerBranch,
  type RepoKey,
} from "../fence-store.js";
import { callRedis, runScript } from "./redis-store.js";

export interface RedisFenceStoreOptions {
  redis: Redis | Cluster;
  /** The same prefix as the LivenessStore's; keys live under `${prefix}{i:N}:f:…` (one slot per installation). */
  keyPrefix: string;
}

const luaInt = "local function int(n) return string.format('%d', n) end\n";

// KEYS: claim notes hash, branch index hash. ARGV: generation, note JSON, branch ('' for none),
// issue, max notes, max subjects per branch, ttl ms.
const recordClaimLua = `${luaInt}
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local max = tonumber(ARGV[5])
local generations = redis.call('HKEYS', KEYS[1])
if #generations > max then
  local numbers = {}
  for i, g in ipairs(generations) do numbers[i] = tonumber(g) end
  table.sort(numbers)
  for i = 1, #numbers - max do redis.call('HDEL', KEYS[1], int(numbers[i])) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[7])
if ARGV[3] ~= '' then
  local issue = tonumber(ARGV[4])
  local raw = redis.call('HGET', KEYS[2], ARGV[3])
  local issues = {}
  if raw then issues = cjson.decode(raw) end
  local known = false
  for _, i in ipairs(issues) do if i == issue then known = true end end
  if not known then
    table.insert(issues, issue)
    while #issues > tonumber(ARGV[6]) do table.remove(issues, 1) end
    redis.call('HSET', KEYS[2], ARGV[3], cjson.encode(issues))
  end
  redis.call('PEXPIRE', KEYS[2], ARGV[7])
end
return 1
`;

// KEYS: subject's sha → {generation: at} hash, the generation's sorted set (sha scored by time),
//       the generation's sha → attesting token digest hash.
// ARGV: sha, generation, now, max shas, ttl ms, token digest ('' for none).
const attestLua = `${luaInt}
local sha, generation, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local max, ttl = tonumber(ARGV[4]), tonumber(ARGV[5])
local function drop(s)
  redis.call('HDEL', KEYS[3], s)
  local raw = redis.call('HGET', KEYS[1], s)
  if not raw then return end
  local m = cjson.decode(raw)
  m[generation] = nil
  if next(m) == nil then redis.call('HDEL', KEYS[1], s) else redis.call('HSET', KEYS[1], s, cjson.encode(m)) end
end
local cutoff = '(' .. int(now - ttl)
for _, s in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', cutoff)) do drop(s) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', cutoff)
redis.call('ZADD', KEYS[2], int(now), sha)
local raw = redis.call('HGET', KEYS[1], sha)
local m = {}
if raw then m = cjson.decode(raw) end
m[generation] = now
redis.call('HSET', KEYS[1], sha, cjson.encode(m))
if ARGV[6] ~= '' then redis.call('HSET', KEYS[3], sha, ARGV[6]) else redis.call('HDEL', KEYS[3], sha) end
local n = redis.call('ZCARD', KEYS[2])
if n > max then
  for _, s in ipairs(redis.call('ZRANGE', KEYS[2], 0, n - max - 1)) do drop(s) end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, n - max - 1)
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], ttl) end
return 1
`;

// Shared by put and remove: unlink a PR from every subject its stored entry names.
const prPrelude = `
local function edit_links(issue, number, add)
  local raw = redis.call('HGET', KEYS[2], issue)
  local list, out, seen = {}, {}, false
  if raw then list = cjson.decode(raw) end
  for _, n in ipairs(list) do
    if n == number then seen = true end
    if n ~= number or add then table.insert(out, n) end
  end
  if add and not seen then table.insert(out, number) end
  if #out == 0 then redis.call('HDEL', KEYS[2], issue) else redis.call('HSET', KEYS[2], issue, cjson.encode(out)) end
end
local function unlink_old(number)
  local old = redis.call('HGET', KEYS[1], tostring(number))
  if not old then return end
  for _, issue in ipairs(cjson.decode(old).linked) do edit_links(tostring(issue), number, false) end
end
`;

// KEYS: PR entries hash, subject → PR numbers hash. ARGV: number, entry JSON, ttl ms.
const putPullRequestLua = `${prPrelude}
local number = tonumber(ARGV[1])
unlink_old(number)
for _, issue in ipairs(cjson.decode(ARGV[2]).linked) do edit_links(tostring(issue), number, true) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
`;

// KEYS: as above. ARGV: number.
const removePullRequestLua = `${prPrelude}
unlink_old(tonumber(ARGV[1]))
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
`;

const scripts = {
  claimholdFenceRecordClaim: { numberOfKeys: 2, lua: recordClaimLua },
  claimholdFenceAttest: { numberOfKeys: 3, lua: attestLua },
  claimholdFencePutPr: { numberOfKeys: 2, lua: putPullRequestLua },
  claimholdFenceRemovePr: { numberOfKeys: 2, lua: removePullRequestLua },
} as const;
type ScriptName = keyof typeof scripts;

const AttestedAt = z.record(z.string().regex(/^\d+$/), z.number());
const IssueList = z.array(z.number().int().positive());
const PrNumbers = z.array(z.number().int().positive());

export class RedisFenceStore implements FenceStore {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;

  constructor(options: RedisFenceStoreOptions) {
    if (options.keyPrefix.includes("{")) {
      throw new Error(
        `keyPrefix "${options.keyPrefix}" must not contain "{": the installation id is the key's hash tag`,
      );
    }
    this.#redis = options.redis;
    this.#prefix = options.keyPrefix;
    for (const [name, script] of Object.entries(scripts)) {
      this.#redis.defineCommand(name, { numberOfKeys: script.numberOfKeys, lua: script.lua });
    }
  }

  async recordClaim(key: SubjectKey, note: ClaimNote): Promise<void> {
    const valid = ClaimNote.parse(note);
    await this.#script(
      "claimholdFenceRecordClaim",
      [this.#subject(key, "claims"), this.#repo(key, "branches")],
      [
        String(valid.generation),
        JSON.stringify(valid),
        valid.branch ?? "",
        String(key.issue),
        String(maxClaimNotes),
        String(maxSubjectsPerBranch),
        String(attestationTtlMs),
      ],
    );
  }

  async attest(
    key: SubjectKey,
    generation: number,
    sha: string,
    now: number,
    tokenDigest?: string,
  ): Promise<void> {
    await this.#script(
      "claimholdFenceAttest",
      [
        this.#subject(key, "att"),
        this.#subject(key, `att:${generation}`),
        this.#subject(key, `att:${generation}:by`),
      ],
      [
        sha,
        String(generation),
        String(now),
        String(maxShasPerGeneration),
        String(attestationTtlMs),
        tokenDigest ?? "",
      ],
    );
  }

  async evidence(key: SubjectKey, sha: string, now: number, current?: CurrentToken): Promise<FenceEvidence> {
    const claimsKey = this.#subject(key, "claims");
    const attKey = this.#subject(key, "att");
    const byKey = current ? this.#subject(key, `att:${current.generation}:by`) : undefined;
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
    const key = this.#repo(repo, "branches");
    const raw = await this.#call(() => this.#redis.hget(key, branch));
    return raw === null ? [] : parseStored(IssueList, raw, key);
  }

  async putPullRequest(repo: RepoKey, pr: IndexedPullRequest): Promise<void> {
    const valid = IndexedPullRequest.parse(pr);
    await this.#script(
      "claimholdFencePutPr",
      [this.#repo(repo, "prs"), this.#repo(repo, "links")],
      [String(valid.number), JSON.stringify(valid), String(attestationTtlMs)],
    );
  }

  async removePullRequest(repo: RepoKey, number: number): Promise<void> {
    await this.#script(
      "claimholdFenceRemovePr",
      [this.#repo(repo, "prs"), this.#repo(repo, "links")],
      [String(number)],
    );
  }

  async pullRequest(repo: RepoKey, number: number): Promise<IndexedPullRequest | null> {
    const key = this.#repo(repo, "prs");
    const raw = await this.#call(() => this.#redis.hget(key, String(number)));
    return raw === null ? null : parseStored(IndexedPullRequest, raw, key);
  }

  async pullRequestsFor(key: SubjectKey): Promise<IndexedPullRequest[]> {
    const linksKey = this.#repo(key, "links");
    const prsKey = this.#repo(key, "prs");
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
    const key = `${this.#base(installationId)}:f:comment:${commentId}`;
    const reply = await this.#call(() => this.#redis.set(key, "1", "PX", ttlMs, "NX"));
    return reply === "OK";
  }

  async unmarkComment(installationId: number, commentId: number): Promise<void> {
    const key = `${this.#base(installationId)}:f:comment:${commentId}`;
    await this.#call(() => this.#redis.del(key));
  }

  #base(installationId: number): string {
    return `${this.#prefix}{i:${installationId}}`;
  }

  #subject(key: SubjectKey, name: string): string {
    return `${this.#base(key.installationId)}:f:s:${key.repoId}:${key.issue}:${name}`;
  }

  #repo(repo: RepoKey, name: string): string {
    return `${this.#base(repo.installationId)}:f:r:${repo.repoId}:${name}`;
  }

  async #script(name: ScriptName, keys: string[], args: string[]): Promise<unknown> {
    return runScript<unknown>(this.#redis, name, keys, args);
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
