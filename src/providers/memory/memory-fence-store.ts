// The embedded FenceStore: the same semantics as the Redis one, in process memory (single replica).
import type { SubjectKey } from "../../domain/claim.js";
import {
  attestationTtlMs,
  type ClaimNote,
  type CrossLink,
  type CurrentToken,
  crossLinkTtlMs,
  type FenceEvidence,
  type FenceStore,
  type IndexedPullRequest,
  maxClaimNotes,
  maxCrossLinks,
  maxShasPerGeneration,
  maxSubjectsPerBranch,
  type RepoKey,
  type SubjectLinks,
} from "../fence-store.js";

const subjectId = (key: SubjectKey) => `${key.installationId}:${key.repoId}:${key.issue}`;
const repoId = (repo: RepoKey) => `${repo.installationId}:${repo.repoId}`;

export class MemoryFenceStore implements FenceStore {
  /** subject → generation → note. */
  readonly #claims = new Map<string, Map<number, ClaimNote>>();
  /** subject → generation → sha → when, and the digest of the token that attested it. */
  readonly #attestations = new Map<string, Map<number, Map<string, Attestation>>>();
  /** repo → branch → issue numbers (oldest first). */
  readonly #branches = new Map<string, Map<string, number[]>>();
  /** repo → PR number → entry. */
  readonly #pullRequests = new Map<string, Map<number, IndexedPullRequest>>();
  /** subject → the PRs of other repositories that close it (oldest first), and when they expire. */
  readonly #crossLinks = new Map<string, { links: CrossLink[]; until: number }>();
  /** `installation:comment` → mark expiry. */
  readonly #comments = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async recordClaim(key: SubjectKey, note: ClaimNote): Promise<SubjectLinks> {
    this.#recordNote(key, note);
    return { pullRequests: await this.pullRequestsFor(key), crossLinks: await this.crossLinksOf(key) };
  }

  async crossLinksOf(key: SubjectKey): Promise<CrossLink[]> {
    const known = this.#crossLinks.get(subjectId(key));
    if (!known || known.until <= this.now()) return [];
    return structuredClone(known.links);
  }

  async rememberCrossLink(key: SubjectKey, link: CrossLink): Promise<void> {
    const links = await this.crossLinksOf(key);
    if (links.some((known) => known.repoId === link.repoId && known.number === link.number)) return;
    const kept = [...links, { repo: link.repo, repoId: link.repoId, number: link.number }].slice(
      -maxCrossLinks,
    );
    this.#crossLinks.set(subjectId(key), { links: kept, until: this.now() + crossLinkTtlMs });
  }

  #recordNote(key: SubjectKey, note: ClaimNote): void {
    const notes = getOrCreate(this.#claims, subjectId(key), () => new Map<number, ClaimNote>());
    notes.set(note.generation, structuredClone(note));
    const ordered = [...notes.keys()].sort((a, b) => a - b);
    for (const generation of ordered.slice(0, Math.max(0, ordered.length - maxClaimNotes))) {
      notes.delete(generation);
    }
    if (!note.branch) return;
    const branches = getOrCreate(this.#branches, repoId(key), () => new Map<string, number[]>());
    const issues = branches.get(note.branch) ?? [];
    if (!issues.includes(key.issue)) {
      issues.push(key.issue);
      branches.set(note.branch, issues.slice(-maxSubjectsPerBranch));
    }
  }

  async attest(
    key: SubjectKey,
    generation: number,
    sha: string,
    now: number,
    tokenDigest?: string,
  ): Promise<void> {
    const generations = getOrCreate(this.#attestations, subjectId(key), () => new Map());
    const shas = getOrCreate(generations, generation, () => new Map<string, Attestation>());
    for (const [known, { at }] of shas) if (at < now - attestationTtlMs) shas.delete(known);
    shas.set(sha, { at: now, ...(tokenDigest ? { by: tokenDigest } : {}) });
    if (shas.size > maxShasPerGeneration) {
      // Oldest first; equal times in SHA order, as a Redis sorted set orders them.
      const ordered = [...shas].sort(([a, { at }], [b, { at: bt }]) => at - bt || (a < b ? -1 : 1));
      for (const [old] of ordered.slice(0, shas.size - maxShasPerGeneration)) shas.delete(old);
    }
  }

  async evidence(key: SubjectKey, sha: string, now: number, current?: CurrentToken): Promise<FenceEvidence> {
    const notes = this.#claims.get(subjectId(key)) ?? new Map<number, ClaimNote>();
    const attested: number[] = [];
    for (const [generation, shas] of this.#attestations.get(subjectId(key)) ?? []) {
      const attestation = shas.get(sha);
      if (!attestation || attestation.at < now - attestationTtlMs) continue;
      const rotatedOut =
        current?.generation === generation &&
        attestation.by !== undefined &&
        attestation.by !== current.tokenDigest;
      if (!rotatedOut) attested.push(generation);
    }
    return {
      claims: [...notes.values()].sort((a, b) => a.generation - b.generation).map((n) => structuredClone(n)),
      attestedGenerations: attested.sort((a, b) => a - b),
    };
  }

  async subjectsForBranch(repo: RepoKey, branch: string): Promise<number[]> {
    return [...(this.#branches.get(repoId(repo))?.get(branch) ?? [])];
  }

  async putPullRequest(repo: RepoKey, pr: IndexedPullRequest): Promise<void> {
    getOrCreate(this.#pullRequests, repoId(repo), () => new Map()).set(pr.number, structuredClone(pr));
  }

  async removePullRequest(repo: RepoKey, number: number): Promise<void> {
    this.#pullRequests.get(repoId(repo))?.delete(number);
  }

  async pullRequest(repo: RepoKey, number: number): Promise<IndexedPullRequest | null> {
    const pr = this.#pullRequests.get(repoId(repo))?.get(number);
    return pr ? structuredClone(pr) : null;
  }

  async pullRequestsFor(key: SubjectKey): Promise<IndexedPullRequest[]> {
    const prs = [...(this.#pullRequests.get(repoId(key))?.values() ?? [])];
    return prs
      .filter((pr) => pr.linked.includes(key.issue))
      .sort((a, b) => a.number - b.number)
      .map((pr) => structuredClone(pr));
  }

  async markCommentHandled(installationId: number, commentId: number, ttlMs: number): Promise<boolean> {
    const id = `${installationId}:${commentId}`;
    const now = this.now();
    const until = this.#comments.get(id);
    if (until !== undefined && until > now) return false;
    this.#comments.set(id, now + ttlMs);
    return true;
  }

  async unmarkComment(installationId: number, commentId: number): Promise<void> {
    this.#comments.delete(`${installationId}:${commentId}`);
  }
}

interface Attestation {
  at: number;
  /** Digest of the lease token that attested (absent for attestations recorded before they named one). */
  by?: string;
}

function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}
