// Declared work scopes (docs/agents.md#declared-scope): which live claims of a repository declare globs that can name the same file.
import type { ClaimRecord } from "../../domain/claim.js";
import { livenessOf } from "../../domain/liveness.js";
import type { Budget } from "./glob-automaton.js";
import { type CompiledGlob, compiledIntersect, compileGlob, searchBudget } from "./glob-intersection.js";

/**
 * The intersecting pairs of two scopes, as shown to agents: the glob itself when both declared it,
 * else `mine ∩ theirs`. Empty when the scopes are disjoint (or either is empty). Within one
 * `searchBudget`: past it, the remaining pairs are compared by their literal prefixes.
 */
export function scopeIntersections(mine: readonly string[], theirs: readonly string[]): string[] {
  return intersectionsOf(mine, mine.map(compileGlob), theirs, { states: searchBudget });
}

function intersectionsOf(
  mine: readonly string[],
  compiled: readonly (CompiledGlob | null)[],
  theirs: readonly string[],
  budget: Budget,
): string[] {
  const right = theirs.map(compileGlob);
  const pairs = new Set<string>();
  mine.forEach((a, i) => {
    theirs.forEach((b, j) => {
      if (compiledIntersect(compiled[i]!, right[j]!, budget)) pairs.add(a === b ? a : `${a} ∩ ${b}`);
    });
  });
  return [...pairs];
}

export interface ScopeOverlap {
  /** `owner/repo#n` of the other claim. */
  subject: string;
  holder: ClaimRecord["actor"];
  /** The intersecting glob pairs (see `scopeIntersections`). */
  paths: string[];
}

/**
 * Other live agent claims (state active, heartbeat within ttl) of the same repository whose declared
 * scope intersects `scope`. `records` is the store's listing of the repository; `self` is skipped.
 */
export function liveScopeOverlaps(
  scope: readonly string[] | undefined,
  self: { repoId: number; issue: number },
  records: readonly ClaimRecord[],
  now: number,
): ScopeOverlap[] {
  if (!scope?.length) return [];
  const compiled = scope.map(compileGlob);
  const budget = { states: searchBudget };
  const overlaps: ScopeOverlap[] = [];
  for (const record of records) {
    if (record.repoId !== self.repoId || record.issue === self.issue) continue;
    if (record.actor.kind !== "agent" || !record.scope?.length) continue;
    if (livenessOf(record, now) !== "live") continue;
    const paths = intersectionsOf(scope, compiled, record.scope, budget);
    if (paths.length > 0) {
      overlaps.push({ subject: `${record.repo}#${record.issue}`, holder: record.actor, paths });
    }
  }
  return overlaps;
}
