// Which forge a request that presents a forge token is for: the `X-Claim-Hold-Forge` header, or the App's only (or first) forge; with several Gitea instances, which one.
import { type Forge, forges, isForge } from "../domain/forge.js";
import type { IdentityProvider } from "../providers/assignment-provider.js";
import { UserError } from "./user-error.js";

/** Names the forge of the token a request presents; needed only when the App serves more than one. */
export const forgeHeader = "x-claim-hold-forge";

/** The forges an App serves, the one a request naming none is for first, and who answers for each. */
export interface ServedForges {
  served: readonly [Forge, ...Forge[]];
  /**
   * The served Gitea instances' names (domain/forge.ts `giteaInstanceName`), named
   * `gitea:<name>`; with more than one, a request for Gitea must name one.
   */
  giteaInstances?: readonly string[];
  /** Who answers for `forge` (for Gitea: the instance `instance` names, or the only one). */
  identityOf(forge: Forge, instance?: string): IdentityProvider;
}

/** A request's forge, and for Gitea the instance it names (absent: the App's only Gitea instance). */
export interface ForgeChoice {
  forge: Forge;
  instance?: string;
}

const forgeTitles: Record<Forge, string> = { github: "GitHub", gitea: "Gitea" };

export function forgeTitle(forge: Forge): string {
  return forgeTitles[forge];
}

const instanceList = (names: readonly string[]) => names.map((name) => `gitea:${name}`).join(", ");

/**
 * The forge a request is for: the one it names (any case, surrounding blanks ignored), or without a
 * name the first the App serves (GitHub when it serves GitHub, so agents of a GitHub-only fleet
 * never name it). `gitea:<name>` names one of `giteaInstances`; a bare `gitea` (or no name on a
 * Gitea-only App) is the only instance, and an error when there are several: a token is never tried
 * on one instance after another. A name that is no forge, or one this App does not serve, is an
 * error sentence.
 */
export function forgeOfRequest(
  named: string | undefined,
  served: readonly [Forge, ...Forge[]],
  giteaInstances: readonly string[] = [],
): ForgeChoice | { error: string } {
  const several = `This claim-hold serves several Gitea instances: name one in X-Claim-Hold-Forge, one of ${instanceList(giteaInstances)}.`;
  if (named === undefined) {
    return served[0] === "gitea" && giteaInstances.length > 1 ? { error: several } : { forge: served[0] };
  }
  const name = named.trim().toLowerCase();
  const colon = name.indexOf(":");
  const forge = colon < 0 ? name : name.slice(0, colon);
  if (!isForge(forge)) {
    return { error: `Unknown forge in X-Claim-Hold-Forge: it is one of ${forges.join(", ")}.` };
  }
  if (!served.includes(forge)) {
    return { error: `This claim-hold serves ${served.join(" and ")}, not ${forge}.` };
  }
  if (colon < 0) {
    return forge === "gitea" && giteaInstances.length > 1 ? { error: several } : { forge };
  }
  const instance = name.slice(colon + 1).replace(/\/+$/, "");
  const match =
    forge === "gitea" ? giteaInstances.find((known) => known.toLowerCase() === instance) : undefined;
  if (match === undefined) {
    const names = [...(served.includes("github") ? ["github"] : []), instanceList(giteaInstances)];
    const choices = giteaInstances.length > 0 ? `: it serves ${names.join(", ")}` : "";
    return { error: `This claim-hold serves no forge named ${name}${choices}.` };
  }
  return { forge, instance: match };
}

/** `forgeOfRequest` as the API answers it: an error is 422 `invalid_request` naming the header. */
export function requestForge(
  named: string | undefined,
  served: readonly [Forge, ...Forge[]],
  giteaInstances?: readonly string[],
): ForgeChoice {
  const chosen = forgeOfRequest(named, served, giteaInstances);
  if ("error" in chosen) {
    throw new UserError(422, "invalid_request", chosen.error, { field: forgeHeader });
  }
  return chosen;
}
