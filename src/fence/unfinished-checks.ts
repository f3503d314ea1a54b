// The check evaluations that could not finish (GitHub or the store down), kept so the janitor re-runs them once it can.
//
// A small list in one store document (bounded, expiring), so whichever replica leads the janitor
// re-runs it. While the store itself is down the list stays in this process and is written at the
// next chance (the next remember, or the janitor's retry). Two replicas writing the document at the
// same moment may lose one entry: that head is then re-evaluated by its next event instead.
import type { Logger } from "pino";
import { z } from "zod";
import type { DocumentStore } from "../providers/app-stores.js";

const documentName = "merge-fence:unfinished-checks";
/** Entries kept at most (the oldest go first); an outage longer than a day is not retried by this list. */
export const maxUnfinishedChecks = 200;
const retentionMs = 24 * 3_600_000;

const sha = z.string().regex(/^[0-9a-f]{40}$/);
const common = {
  installationId: z.number().int().positive(),
  repo: z.string().min(3).max(200),
  repoId: z.number().int().positive(),
  headSha: sha,
  at: z.number(),
};

export const UnfinishedCheck = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("pull"), ...common, number: z.number().int().positive() }),
  z.strictObject({
    kind: z.literal("group"),
    ...common,
    headRef: z.string().min(1).max(400),
    baseRef: z.string().min(1).max(300),
  }),
]);
export type UnfinishedCheck = z.infer<typeof UnfinishedCheck>;

const UnfinishedList = z.array(UnfinishedCheck);

export function unfinishedKey(
  check: Pick<UnfinishedCheck, "kind" | "installationId" | "repoId" | "headSha">,
) {
  return `${check.kind}:${check.installationId}:${check.repoId}:${check.headSha}`;
}

export class UnfinishedChecks {
  /** Entries the store could not take yet. */
  readonly #pending = new Map<string, UnfinishedCheck>();

  constructor(private readonly deps: { store: DocumentStore; now: () => number; log: Logger }) {}

  /** Remembers an evaluation to re-run; never throws (the store being down is why it is remembered). */
  async remember(check: UnfinishedCheck): Promise<void> {
    this.#pending.set(unfinishedKey(check), check);
    try {
      await this.#write([]);
    } catch {
      this.deps.log.warn(
        { unfinished: this.#pending.size },
        "the store is unavailable: unfinished check evaluations kept in this process until it answers",
      );
    }
  }

  /** Every entry to re-run (this process's ones written to the store first). Throws while the store is down. */
  async due(): Promise<UnfinishedCheck[]> {
    return this.#write([]);
  }

  /** Drops the entries that were re-run and finished. */
  async settle(finished: string[]): Promise<void> {
    if (finished.length > 0) await this.#write(finished);
  }

  async #write(drop: string[]): Promise<UnfinishedCheck[]> {
    const { store, now } = this.deps;
    const stored = UnfinishedList.safeParse((await store.getDocument(documentName)) ?? []);
    if (!stored.success)
      this.deps.log.warn("unreadable list of unfinished check evaluations: started afresh");
    const byKey = new Map<string, UnfinishedCheck>();
    for (const check of stored.success ? stored.data : []) byKey.set(unfinishedKey(check), check);
    for (const [key, check] of this.#pending) byKey.set(key, check);
    for (const key of drop) byKey.delete(key);
    const horizon = now() - retentionMs;
    const kept = [...byKey.values()]
      .filter((check) => check.at >= horizon)
      .sort((a, b) => a.at - b.at)
      .slice(-maxUnfinishedChecks);
    const changed = this.#pending.size > 0 || drop.length > 0 || kept.length !== byKey.size;
    if (changed) await store.putDocument(documentName, kept, retentionMs);
    this.#pending.clear();
    return kept;
  }
}
