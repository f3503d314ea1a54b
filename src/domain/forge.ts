// Which forge an installation record belongs to: GitHub's installation ids, and a reserved id space for Gitea instances.

export const forges = ["github", "gitea"] as const;
export type Forge = (typeof forges)[number];

/**
 * Gitea (and Forgejo) installation records take ids from 2^48 up: GitHub's installation ids are far
 * below it (hundreds of millions), and 2^48 + 2^31 is still a safe integer. A record id alone then
 * names its forge, so the stores, lease ids and the lease core need no forge field, and a Gitea
 * record never meets the GitHub installation of the same number.
 */
const giteaRecordBase = 2 ** 48;
const largestInstanceNumber = 2 ** 31 - 1;

/** The installation record id of the Gitea instance numbered `instance` (`GITEA_INSTALLATION_ID`, from 1). */
export function giteaInstallationRecordId(instance: number): number {
  if (!Number.isInteger(instance) || instance < 1 || instance > largestInstanceNumber) {
    throw new RangeError(`a Gitea instance number is a whole number from 1 to ${largestInstanceNumber}`);
  }
  return giteaRecordBase + instance;
}

/** The forge of an installation record id, and its number on that forge (a Gitea record: its instance number). */
export function forgeOfInstallation(installationId: number): { forge: Forge; number: number } {
  return installationId > giteaRecordBase
    ? { forge: "gitea", number: installationId - giteaRecordBase }
    : { forge: "github", number: installationId };
}

/**
 * How a Gitea or Forgejo instance is named, on the dashboard and by agents (`X-Claim-Hold-Forge:
 * gitea:<name>`): its URL's host (with a port, if any), and a path if it is served under one.
 */
export function giteaInstanceName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname.replace(/\/+$/, "")}`;
  } catch {
    return url;
  }
}

export function isForge(name: string): name is Forge {
  return (forges as readonly string[]).includes(name);
}

// GitHub's token formats (https://github.blog/changelog/2021-03-31-authentication-token-format-updates-are-generally-available/).
const githubTokenPrefixes = ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"];

/**
 * Whether `token` is plainly GitHub's while the request is for another forge: it is refused without
 * being sent there (another forge's server must never see a GitHub credential).
 */
export function isOtherForgesToken(forge: Forge, token: string): boolean {
  return forge !== "github" && githubTokenPrefixes.some((prefix) => token.startsWith(prefix));
}
