// Lease state of this worktree: one 0600 JSON file per subject in `<gitDir>/claim-hold/`.
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { UsageError } from "./errors.js";
import { formatSubject, type SubjectRef } from "./subject.js";

export const LeaseFileSchema = z.strictObject({
  version: z.literal(1),
  /** The server that issued the lease; used when `CLAIM_HOLD_URL` is not set (e.g. inside git hooks). */
  baseUrl: z.string().min(1),
  repo: z.string(),
  issue: z.number().int().positive(),
  leaseId: z.string().min(1),
  /** The `clh_` lease token: the only copy, hence the 0600 mode. */
  token: z.string().startsWith("clh_"),
  generation: z.number().int().positive(),
  taskClass: z.string(),
  branch: z.string().nullable(),
  ttlSeconds: z.number().positive(),
  heartbeatIntervalSeconds: z.number().positive(),
  expiresAt: z.union([z.string(), z.number()]),
  claimedAt: z.string(),
  sessionId: z.string(),
  /**
   * `held` until a call learns otherwise; kept after a loss so `verify` and `status` can say why.
   * `releasing` is written before a release call, so a concurrent `keepalive` that meets the
   * resulting `410` knows this session released it.
   */
  status: z.enum(["held", "releasing", "superseded", "gone"]),
  statusDetail: z.string().optional(),
  /** The blocker of the session's standing ask for a person: every heartbeat repeats it until withdrawn. */
  needsHuman: z.string().min(1).max(300).optional(),
});
export type LeaseFile = z.infer<typeof LeaseFileSchema>;

const suffix = ".json";

export function leaseDir(gitDir: string): string {
  return join(gitDir, "claim-hold");
}

export function leaseFileName(subject: SubjectRef): string {
  return `${subject.repo.replace("/", "__")}__${subject.issue}${suffix}`;
}

export async function readLease(dir: string, subject: SubjectRef): Promise<LeaseFile | null> {
  const text = await readFile(join(dir, leaseFileName(subject)), "utf8").catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    },
  );
  if (text === null) return null;
  const parsed = LeaseFileSchema.safeParse(safeJson(text));
  if (!parsed.success) {
    throw new Error(
      `lease file ${join(dir, leaseFileName(subject))} is unreadable; remove it and claim again`,
    );
  }
  return parsed.data;
}

export async function listLeases(dir: string): Promise<LeaseFile[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const leases: LeaseFile[] = [];
  for (const name of names.filter((n) => /^.+__.+__\d+\.json$/.test(n)).sort()) {
    const parsed = LeaseFileSchema.safeParse(
      safeJson(await readFile(join(dir, name), "utf8").catch(() => "")),
    );
    if (parsed.success) leases.push(parsed.data);
  }
  return leases;
}

/** Atomic replace, owner-only permissions. */
export async function writeLease(dir: string, lease: LeaseFile): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const target = join(dir, leaseFileName(lease));
  const temporary = `${target}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(lease, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, target);
}

export async function removeLease(dir: string, subject: SubjectRef): Promise<void> {
  await rm(join(dir, leaseFileName(subject)), { force: true });
}

/**
 * Records a loss only if the file still holds the same lease: a concurrent `release` or re-claim
 * must not be undone by a late writer.
 */
export async function markLease(
  dir: string,
  lease: LeaseFile,
  status: LeaseFile["status"],
  statusDetail?: string,
): Promise<void> {
  const current = await readLease(dir, lease).catch(() => null);
  if (!current || current.leaseId !== lease.leaseId || current.token !== lease.token) return;
  const { statusDetail: _previous, ...rest } = current;
  await writeLease(dir, { ...rest, status, ...(statusDetail ? { statusDetail } : {}) });
}

/** The lease a subject-less command acts on: the one named by `--issue`, else the only one there is. */
export async function selectLease(dir: string, issue: SubjectRef | undefined): Promise<LeaseFile> {
  if (issue) {
    const lease = await readLease(dir, issue);
    if (!lease) throw new UsageError(`no lease for ${formatSubject(issue)} in this worktree; claim it first`);
    return lease;
  }
  const leases = await listLeases(dir);
  const [only] = leases;
  if (only && leases.length === 1) return only;
  if (leases.length === 0)
    throw new UsageError("no lease in this worktree; run `claim-hold claim owner/repo#n` first");
  throw new UsageError(
    `${leases.length} leases in this worktree (${leases.map(formatSubject).join(", ")}); choose one with --issue owner/repo#n`,
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
