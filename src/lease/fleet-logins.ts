// The installation's fleet logins (docs/security.md#trust-model): learned from agent claims, kept in the store, remembered in memory.
import type { RepoConfig } from "../config/repo-config.js";
import { type ActorKind, actorKindOf, isFleetLogin } from "../domain/trust.js";
import type { FleetLoginStore } from "../providers/app-stores.js";

/** A claim comment's marker as far as fleet evidence needs it (signed: only verified markers reach here). */
interface MarkerActor {
  marker: { actor: { kind: "agent" | "human"; login: string } };
}

/** How long the store's "no" is taken as the answer: one evaluation asks twice (its index, its verdict). */
const notFleetMemoryMs = 5_000;

export class FleetLogins {
  /** `installationId:login` known to be fleet logins: a login once proven stays one (never unlearned). */
  readonly #known = new Set<string>();
  /** `installationId:login` the store said are none, until when (a claim in this process learns at once). */
  readonly #notFleet = new Map<string, number>();

  constructor(
    private readonly store: FleetLoginStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Records that `login` holds an agent claim here. One store write per login per process: the
   * claim path pays it once, never in the steady state.
   */
  async learn(installationId: number, login: string): Promise<void> {
    const id = idOf(installationId, login);
    if (this.#known.has(id)) return;
    await this.store.rememberFleetLogin(installationId, login);
    this.#known.add(id);
    this.#notFleet.delete(id);
  }

  /**
   * Whether an account runs agents, from every piece of evidence: GitHub's account type, the
   * config's `agents.logins`, what this process learned, the store, and signed claim markers of
   * the subject at hand (a store that lost its set is rebuilt from them, one login at a time).
   */
  async isFleet(
    installationId: number,
    account: { login: string; bot: boolean },
    config: Pick<RepoConfig, "agents">,
    markers: readonly MarkerActor[] = [],
    /** Ask the store even if it said no a moment ago (a person's command is decided on it). */
    options: { fresh?: boolean } = {},
  ): Promise<boolean> {
    if (this.knownNow(installationId, account, config)) return true;
    const login = account.login.toLowerCase();
    if (
      markers.some((c) => c.marker.actor.kind === "agent" && c.marker.actor.login.toLowerCase() === login)
    ) {
      await this.learn(installationId, account.login);
      return true;
    }
    const id = idOf(installationId, account.login);
    const until = this.#notFleet.get(id);
    if (!options.fresh && until !== undefined && until > this.now()) return false;
    if (await this.store.isFleetLogin(installationId, account.login)) {
      this.#known.add(id);
      this.#notFleet.delete(id);
      return true;
    }
    if (this.#notFleet.size > 10_000) this.#notFleet.clear();
    this.#notFleet.set(id, this.now() + notFleetMemoryMs);
    return false;
  }

  /**
   * Who acted, as the trust model classifies it (`actorKindOf`): the one place a forge's sender is
   * judged for the acts only a person's count for (`countsAsPerson`). The App's own account asks
   * nothing; anyone else is asked of `isFleet` afresh (a person's act is decided on it).
   */
  async actorKind(
    installationId: number,
    account: { login: string; bot: boolean; ownApp: boolean },
    config: Pick<RepoConfig, "agents">,
    markers: readonly MarkerActor[] = [],
  ): Promise<ActorKind> {
    if (account.ownApp) return actorKindOf({ ownApp: true, fleet: false });
    const fleet = await this.isFleet(installationId, account, config, markers, { fresh: true });
    return actorKindOf({ ownApp: false, fleet });
  }

  /** What is known without asking the store (it may be down): account type, config, memory. */
  knownNow(
    installationId: number,
    account: { login: string; bot: boolean },
    config: Pick<RepoConfig, "agents">,
  ): boolean {
    return isFleetLogin({
      login: account.login,
      bot: account.bot,
      learned: this.#known.has(idOf(installationId, account.login)),
      configured: config.agents.logins,
    });
  }
}

function idOf(installationId: number, login: string): string {
  return `${installationId}:${login.toLowerCase()}`;
}
