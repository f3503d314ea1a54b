// The memory store's live-claim counts per login and per session, kept at each transition (as the Redis sorted sets are).
import type { Actor, ClaimRecord } from "../../domain/claim.js";
import { aliveAt } from "../../domain/liveness.js";

/** Where an active subject is counted: its login's and (with a session identity) its session's group. */
interface Holder {
  login: string;
  session: string | null;
}

/** The groups an actor's claims are counted in, as the Redis keys name them (JSON, so no two collide). */
function groupsOf(installationId: number, actor: Actor): Holder {
  const login = `${installationId}:login:${JSON.stringify(actor.login)}`;
  const identified = actor.kind === "agent" && !!actor.sessionId;
  const session = identified
    ? `${installationId}:session:${JSON.stringify([actor.login, actor.sessionId])}`
    : null;
  return { login, session };
}

/** A subject's member in its installation's groups. */
function memberOf(record: { installationId: number; repoId: number; issue: number }): string {
  return `${record.installationId}:${record.repoId}:${record.issue}`;
}

/**
 * Active subjects by group, each with its live-until (last heartbeat or wait, plus the ttl): a
 * claim is live while live-until is after now, exactly as `liveClaimsOf` decided by reading records.
 */
export class LiveClaims {
  readonly #holders = new Map<string, Holder>();
  readonly #groups = new Map<string, Map<string, number>>();

  /** After any transition of the record: counted while active, dropped otherwise. */
  index(record: ClaimRecord): void {
    if (record.state !== "active") {
      this.drop(record);
      return;
    }
    const member = memberOf(record);
    const groups = groupsOf(record.installationId, record.actor);
    const old = this.#holders.get(member);
    if (old && old.login !== groups.login) this.#leave(old.login, member);
    if (old?.session && old.session !== groups.session) this.#leave(old.session, member);
    this.#holders.set(member, groups);
    const liveUntil = aliveAt(record) + record.durations.ttlMs;
    this.#join(groups.login, member, liveUntil);
    if (groups.session) this.#join(groups.session, member, liveUntil);
  }

  drop(key: { installationId: number; repoId: number; issue: number }): void {
    const member = memberOf(key);
    const old = this.#holders.get(member);
    if (!old) return;
    this.#leave(old.login, member);
    if (old.session) this.#leave(old.session, member);
    this.#holders.delete(member);
  }

  /** The actor's live claims in the installation at `now`, other than `skip`'s. */
  count(
    skip: { installationId: number; repoId: number; issue: number },
    actor: Actor,
    now: number,
  ): { session: number; login: number } {
    const groups = groupsOf(skip.installationId, actor);
    const member = memberOf(skip);
    return {
      login: this.#live(groups.login, member, now),
      session: groups.session ? this.#live(groups.session, member, now) : 0,
    };
  }

  purge(installationId: number): void {
    const prefix = `${installationId}:`;
    for (const member of this.#holders.keys()) if (member.startsWith(prefix)) this.#holders.delete(member);
    for (const group of this.#groups.keys()) if (group.startsWith(prefix)) this.#groups.delete(group);
  }

  #live(group: string, member: string, now: number): number {
    let n = 0;
    for (const [m, liveUntil] of this.#groups.get(group) ?? []) if (m !== member && liveUntil > now) n++;
    return n;
  }

  #join(group: string, member: string, liveUntil: number): void {
    let members = this.#groups.get(group);
    if (!members) {
      members = new Map();
      this.#groups.set(group, members);
    }
    members.set(member, liveUntil);
  }

  #leave(group: string, member: string): void {
    const members = this.#groups.get(group);
    members?.delete(member);
    if (members?.size === 0) this.#groups.delete(group);
  }
}
