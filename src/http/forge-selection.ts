// Which forge a request that presents a forge token is for: the `X-Claim-Hold-Forge` header, or the App's only (or first) forge.
import { type Forge, forges, isForge } from "../domain/forge.js";
import type { IdentityProvider } from "../providers/assignment-provider.js";
import { UserError } from "./user-error.js";

/** Names the forge of the token a request presents; needed only when the App serves more than one. */
export const forgeHeader = "x-claim-hold-forge";

/** The forges an App serves, the one a request naming none is for first, and who answers for each. */
export interface ServedForges {
  served: readonly [Forge, ...Forge[]];
  identityOf(forge: Forge): IdentityProvider;
}

const forgeTitles: Record<Forge, string> = { github: "GitHub", gitea: "Gitea" };

export function forgeTitle(forge: Forge): string {
  return forgeTitles[forge];
}

/**
 * The forge a request is for: the one it names (any case, surrounding blanks ignored), or without a
 * name the first the App serves (GitHub when it serves GitHub, so agents of a GitHub-only fleet
 * never name it). A name that is no forge, or one this App does not serve, is an error sentence.
 */
export function forgeOfRequest(
  named: string | undefined,
  served: readonly [Forge, ...Forge[]],
): { forge: Forge } | { error: string } {
  if (named === undefined) return { forge: served[0] };
  const name = named.trim().toLowerCase();
  if (!isForge(name)) {
    return { error: `Unknown forge in X-Claim-Hold-Forge: it is one of ${forges.join(", ")}.` };
  }
  if (!served.includes(name)) {
    return { error: `This claim-hold serves ${served.join(" and ")}, not ${name}.` };
  }
  return { forge: name };
}

/** `forgeOfRequest` as the API answers it: an error is 422 `invalid_request` naming the header. */
export function requestForge(named: string | undefined, served: readonly [Forge, ...Forge[]]): Forge {
  const chosen = forgeOfRequest(named, served);
  if ("error" in chosen) {
    throw new UserError(422, "invalid_request", chosen.error, { field: forgeHeader });
  }
  return chosen.forge;
}
