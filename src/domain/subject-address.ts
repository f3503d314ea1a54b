// How the dashboard names a subject in its URLs and forms: GitHub's by repository and number (its installation looked up), another forge's with its installation record too (docs/deploy.md#8-watch-it).
import { type Forge, forgeOfInstallation, isForge } from "./forge.js";

/**
 * A subject as a dashboard page or form names it. `installationId` is present only for another
 * forge's record (a Gitea instance's, 2^48 + N): a GitHub subject is found by its repository's
 * installation, as before records of other forges existed, so its URLs and forms are unchanged.
 */
export interface SubjectAddress {
  repo: string;
  issue: number;
  installationId?: number;
}

/** The address of a subject the store keeps under `installationId`: the record named only off GitHub. */
export function subjectAddressOf(installationId: number, repo: string, issue: number): SubjectAddress {
  return forgeOfInstallation(installationId).forge === "github"
    ? { repo, issue }
    : { repo, issue, installationId };
}

/** Up to 16 digits: a Gitea record is 2^48 + N, 15 digits; anything longer is no safe record id. */
const recordDigits = /^[1-9]\d{0,15}$/;

/**
 * The installation record a `/subjects/{forge}/{record}/…` path names: a whole number in `forge`'s
 * id space, `forge` not GitHub (whose subjects keep `/subjects/{owner}/{repo}/{n}`). Null for a
 * GitHub-format record under another forge's name, an unknown forge, or no number.
 */
export function otherForgeRecordOf(forge: string, record: string): number | null {
  if (!isForge(forge) || forge === "github" || !recordDigits.test(record)) return null;
  const id = Number(record);
  return Number.isSafeInteger(id) && forgeOfInstallation(id).forge === forge ? id : null;
}

/**
 * A subject action form's `installationId`: absent or GitHub's → `{}` (the subject is found by its
 * repository, as before); another forge's record → that record; malformed → null (refused).
 */
export function formRecordOf(field: string | undefined): { installationId?: number } | null {
  if (field === undefined || field === "") return {};
  if (!recordDigits.test(field) || !Number.isSafeInteger(Number(field))) return null;
  const id = Number(field);
  return forgeOfInstallation(id).forge === "github" ? {} : { installationId: id };
}

/** The forge an address's subject is on. */
export function forgeOfAddress(address: SubjectAddress): Forge {
  return address.installationId === undefined ? "github" : forgeOfInstallation(address.installationId).forge;
}
