// The Redis key layout of the claim and fence stores: one hash tag per installation, so every script stays in one slot.
import type { Actor, SubjectKey } from "../../domain/claim.js";
import { forgeOfInstallation } from "../../domain/forge.js";

function checkedPrefix(prefix: string): string {
  if (prefix.includes("{")) {
    throw new Error(`keyPrefix "${prefix}" must not contain "{": the installation id is the key's hash tag`);
  }
  return prefix;
}

/**
 * Every key of one installation record starts with this; its braces are the Redis Cluster hash tag,
 * so all of them share one slot. A GitHub installation's is `{i:N}` (the layout every release
 * wrote); a Gitea instance's record (domain/forge.ts) is `{g:N}`, N its instance number, so the
 * same repository and issue numbers on the two forges never share a key.
 */
function installationBase(prefix: string, installationId: number): string {
  const { forge, number } = forgeOfInstallation(installationId);
  return forge === "gitea" ? `${prefix}{g:${number}}` : `${prefix}{i:${number}}`;
}

/**
 * The per-subject keys: record, generation high-water mark, per-generation digests, history, spend,
 * write lock, failed attempts, the failure breaker's trip written (the newest attempt's generation it
 * summarised), and the gaps between the last generation's heartbeats.
 */
export type SubjectKeyName = "rec" | "gen" | "tok" | "hist" | "spend" | "wlock" | "fail" | "trip" | "gaps";

export class StoreKeys {
  readonly #prefix: string;

  constructor(prefix: string) {
    if (prefix.includes("{")) {
      throw new Error(
        `keyPrefix "${prefix}" must not contain "{": the installation id is the key's hash tag`,
      );
    }
    this.#prefix = prefix;
  }

  /** Every key of one installation starts with this (hash tag `{i:N}`, a Gitea record's `{g:N}`). */
  base(installationId: number): string {
    return installationBase(this.#prefix, installationId);
  }

  subject(key: SubjectKey, name: SubjectKeyName): string {
    return `${this.base(key.installationId)}:s:${key.repoId}:${key.issue}:${name}`;
  }

  /** A subject's keys under the names a script's definition gives them: `{ record: "rec", … }`. */
  subjectKeys<N extends string>(key: SubjectKey, names: Record<N, SubjectKeyName>): Record<N, string> {
    const keys = {} as Record<N, string>;
    for (const [name, kind] of Object.entries(names) as [N, SubjectKeyName][]) {
      keys[name] = this.subject(key, kind);
    }
    return keys;
  }

  /** The installation's deadlines and holders, and the subject's repository listing. */
  indexKeys(key: SubjectKey): { deadlines: string; holders: string; repository: string } {
    return {
      deadlines: this.deadlines(key.installationId),
      holders: this.holders(key.installationId),
      repository: this.repository(key),
    };
  }

  /** Active claims by deadline (the janitor's queue). */
  deadlines(installationId: number): string {
    return `${this.base(installationId)}:deadlines`;
  }

  /** Active claims with the keys of the live-claim sets they are counted in; `${base}:holders` (the backfill relies on it). */
  holders(installationId: number): string {
    return `${this.base(installationId)}:holders`;
  }

  /** Logins that held agent claims in the installation (the trust model's fleet logins). */
  fleetLogins(installationId: number): string {
    return `${this.base(installationId)}:fleet`;
  }

  /** Installations with claims: a global key (no hash tag), so it lives outside every installation's slot. */
  installations(): string {
    return `${this.#prefix}installations`;
  }

  /** The repository listing: the subjects of one repository, scored by their last activity. */
  repository(key: { installationId: number; repoId: number }): string {
    return `${this.base(key.installationId)}:repo:${key.repoId}`;
  }

  /** Repository ids that ever held a record: written before the record, so no record is ever unindexed. */
  repositories(installationId: number): string {
    return `${this.base(installationId)}:repos`;
  }

  epoch(installationId: number): string {
    return `${this.base(installationId)}:epoch`;
  }

  /**
   * The sorted sets (member = subject, score = live-until) an actor's active claims are counted in.
   * `${base}:live:…`: the claim script's backfill derives them from the plain sets `${base}:login:…`
   * and `${base}:session:…` that entries written before them name (lua/includes/indexes.lua).
   */
  actorSets(installationId: number, actor: Actor | null): { loginSet: string; sessionSet: string } {
    const base = this.base(installationId);
    if (!actor) return { loginSet: `${base}:live:login:-`, sessionSet: `${base}:live:session:-` };
    return {
      loginSet: `${base}:live:login:${JSON.stringify(actor.login)}`,
      sessionSet: `${base}:live:session:${JSON.stringify([actor.login, actor.sessionId ?? ""])}`,
    };
  }

  /** Set once the installation's holders are all in the live-claim sets (the backfill ran). */
  liveIndexed(installationId: number): string {
    return `${this.base(installationId)}:live:indexed`;
  }

  /**
   * The candidate index of one repository (`claims/next`): `order` (sorted set of zero-padded issue
   * numbers by ranking score), `facts` (hash of their facts), `res` (pick reservations), `meta`
   * (the ranking it is scored by, when it was last refreshed).
   */
  queue(repo: { installationId: number; repoId: number }, name: "order" | "facts" | "res" | "meta"): string {
    return `${this.base(repo.installationId)}:q:${repo.repoId}:${name}`;
  }

  /** The installation's indexed repositories: lower-cased `owner/name` → repository id (the queue's name lookup). */
  queueNames(installationId: number): string {
    return `${this.base(installationId)}:q:names`;
  }

  delivery(deliveryId: string): string {
    return `${this.#prefix}delivery:${deliveryId}`;
  }

  lock(name: string): string {
    return `${this.#prefix}lock:${name}`;
  }

  document(name: string): string {
    return `${this.#prefix}doc:${name}`;
  }
}

/** The fence store's keys, under `${prefix}{i:N}:f:…` beside the claim store's. */
export class FenceKeys {
  readonly #prefix: string;

  constructor(prefix: string) {
    this.#prefix = checkedPrefix(prefix);
  }

  subject(key: SubjectKey, name: string): string {
    return `${installationBase(this.#prefix, key.installationId)}:f:s:${key.repoId}:${key.issue}:${name}`;
  }

  repo(repo: { installationId: number; repoId: number }, name: string): string {
    return `${installationBase(this.#prefix, repo.installationId)}:f:r:${repo.repoId}:${name}`;
  }

  /** `/reclaim` idempotency by comment id. */
  comment(installationId: number, commentId: number): string {
    return `${installationBase(this.#prefix, installationId)}:f:comment:${commentId}`;
  }
}

/** A subject's member in the installation's sorted sets and hashes. */
export function memberOf(key: SubjectKey): string {
  return `${key.repoId}:${key.issue}`;
}

/** Redis SCAN MATCH patterns treat these as wildcards; braces are literal. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}

/**
 * The notification outbox's keys, all under the one hash tag `{notify}` (so each outbox script
 * stays in one slot): events are few, and every sender claims from the one due index.
 */
export class OutboxKeys {
  readonly #base: string;

  constructor(prefix: string) {
    this.#base = `${checkedPrefix(prefix)}{notify}`;
  }

  /** Delivery ids scored by when they are due (a claimed one: when its lease ends). */
  due(): string {
    return `${this.#base}:due`;
  }

  /** Delivery id → the stored delivery (sink id and notification, JSON). */
  entries(): string {
    return `${this.#base}:entries`;
  }

  /** Delivery id → tries so far. */
  attempts(): string {
    return `${this.#base}:attempts`;
  }

  /** Delivery id → the claimant holding it. */
  claims(): string {
    return `${this.#base}:claims`;
  }

  /** Settled deliveries, newest first (capped). */
  recent(): string {
    return `${this.#base}:recent`;
  }

  /** Set while an event id is remembered (so it is queued once). */
  seen(eventId: string): string {
    return `${this.#base}:seen:${eventId}`;
  }
}

/** Whether the actor's claims count against a per-session cap: its `sessionSet` of `actorSets`. */
export function hasSessionIdentity(actor: Actor): boolean {
  return actor.kind === "agent" && !!actor.sessionId;
}
