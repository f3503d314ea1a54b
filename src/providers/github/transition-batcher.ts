// Transitions of one installation that arrive while its previous mutation is out go together in the next one.
import { batchPrefix, batchTransitionMutations, type TransitionMutation } from "./graphql/index.js";
import type { OctokitLike } from "./octokit-like.js";

/**
 * The most subjects one batched mutation carries: a burst of 30 claims of one installation (the
 * first goes alone, the rest wait for it) lands in two requests, so every claimant has its answer
 * about one write spacing after the first. GitHub's write rules still hold: one mutation request at a
 * time per installation, each spaced by the write limiter (about one a second), and a mutation
 * request costs the same secondary-limit points whatever its fields; 30 subjects' fields (a claim
 * comment each at most) stay well inside the 80 content creations a minute.
 */
export const MAX_BATCHED_TRANSITIONS = 30;

/**
 * The production client's write spacing per installation (`@octokit/plugin-throttling`'s write
 * limiter: one mutation or REST write at a time, 1 s apart). Coalescing is on only behind it.
 */
export const WRITE_SPACING_MS = 1_000;

/** Sends one mutation document (counts it, then `octokit.graphql`). */
export type SendMutation = (
  octokit: OctokitLike,
  document: string,
  variables: Record<string, unknown>,
) => Promise<unknown>;

interface Pending {
  subject: string;
  octokit: OctokitLike;
  mutation: TransitionMutation;
  resolve: (data: unknown) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  queue: Pending[];
  /** The subjects of the request out now. */
  inFlight: Set<string>;
}

interface GraphqlFailure {
  errors: { path?: unknown }[];
  data?: Record<string, unknown> | null;
}

/** One subject's share of GitHub's errors for a batched mutation, worded as for a lone one. */
export class BatchedSubjectError extends Error {
  constructor(
    readonly errors: { message?: unknown; type?: unknown; path?: unknown }[],
    options?: { cause?: unknown },
  ) {
    super(errors.map((e) => String(e.message ?? e.type ?? "unknown error")).join("; "), options);
    this.name = "BatchedSubjectError";
  }
}

/**
 * Serial writes per installation, batched naturally: a transition is sent at once when its
 * installation has no mutation out (the same document as a lone write), otherwise it waits for that
 * one to finish and goes, with the others that waited (up to `MAX_BATCHED_TRANSITIONS`), in one
 * document of aliased fields. GitHub runs them in document order and answers each field on its own,
 * so one subject's errors fail that subject only; a failure of the whole request fails every subject
 * in it. The next request is put together no sooner than `spacingMs` after the previous one was sent
 * (the lane stays open that long even when nothing waits): the write limiter would hold it that long
 * anyway, and transitions arriving meanwhile still join it (in the limiter's queue the batch would
 * already be closed), so a burst whose reads answer over a second still lands in two requests.
 */
export class TransitionBatcher {
  readonly #lanes = new Map<number, Lane>();
  readonly #maxBatch: number;
  readonly #onQueued: ((queued: number) => void) | undefined;
  readonly #spacingMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  #queued = 0;

  constructor(
    private readonly sendMutation: SendMutation,
    options: {
      maxBatch?: number;
      onQueued?: ((queued: number) => void) | undefined;
      /** Default `WRITE_SPACING_MS`. */
      spacingMs?: number;
      /** Milliseconds of a steady clock (default `performance.now`) and a pause on it (for tests). */
      now?: () => number;
      sleep?: (ms: number) => Promise<void>;
    } = {},
  ) {
    this.#maxBatch = options.maxBatch ?? MAX_BATCHED_TRANSITIONS;
    this.#onQueued = options.onQueued;
    this.#spacingMs = options.spacingMs ?? WRITE_SPACING_MS;
    this.#now = options.now ?? (() => performance.now());
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Transitions waiting, over every installation. */
  get queued(): number {
    return this.#queued;
  }

  #count(change: number): void {
    this.#queued += change;
    this.#onQueued?.(this.#queued);
  }

  /**
   * The response data of this transition's own fields (unprefixed), or its own error. `subject` is
   * the subject's node id: a write of a subject whose earlier write is still out (the write fence let
   * it go ahead after its wait) is sent at once on its own, never queued behind that earlier one.
   */
  submit(
    installationId: number,
    subject: string,
    octokit: OctokitLike,
    mutation: TransitionMutation,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const pending: Pending = { subject, octokit, mutation, resolve, reject };
      const lane = this.#lanes.get(installationId);
      if (lane?.inFlight.has(subject)) {
        void this.#send([pending]);
        return;
      }
      if (lane) {
        lane.queue.push(pending);
        this.#count(1);
        return;
      }
      const fresh: Lane = { queue: [], inFlight: new Set() };
      this.#lanes.set(installationId, fresh);
      void this.#run(installationId, fresh, [pending]);
    });
  }

  async #run(installationId: number, lane: Lane, batch: Pending[]): Promise<void> {
    let next = batch;
    while (next.length > 0) {
      lane.inFlight = new Set(next.map((p) => p.subject));
      const sentAt = this.#now();
      await this.#send(next);
      lane.inFlight = new Set();
      // Kept open (queue empty or not) until the limiter would let the next write go.
      const spacing = sentAt + this.#spacingMs - this.#now();
      if (lane.queue.length < this.#maxBatch && spacing > 0) await this.#sleep(spacing);
      next = lane.queue.splice(0, this.#maxBatch);
      if (next.length > 0) this.#count(-next.length);
    }
    this.#lanes.delete(installationId);
  }

  async #send(batch: Pending[]): Promise<void> {
    const first = batch[0]!;
    if (batch.length === 1) {
      try {
        first.resolve(
          await this.sendMutation(first.octokit, first.mutation.document, first.mutation.variables),
        );
      } catch (error) {
        first.reject(error);
      }
      return;
    }
    const combined = batchTransitionMutations(batch.map((p) => p.mutation));
    let data: Record<string, unknown>;
    try {
      data = (await this.sendMutation(first.octokit, combined.document, combined.variables)) as Record<
        string,
        unknown
      >;
    } catch (error) {
      const failure = splittableFailure(error, batch.length);
      if (!failure) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      batch.forEach((pending, index) => {
        const prefix = batchPrefix(index);
        const own = failure.errors.filter((e) => aliasOf(e)?.startsWith(prefix));
        if (own.length > 0) {
          pending.reject(
            new BatchedSubjectError(
              own.map((e) => ({ ...e, path: [aliasOf(e)!.slice(prefix.length), ...pathOf(e).slice(1)] })),
              { cause: error },
            ),
          );
        } else {
          pending.resolve(ownData(failure.data ?? {}, prefix));
        }
      });
      return;
    }
    batch.forEach((pending, index) => {
      pending.resolve(ownData(data ?? {}, batchPrefix(index)));
    });
  }
}

function pathOf(error: { path?: unknown }): unknown[] {
  return Array.isArray(error.path) ? error.path : [];
}

function aliasOf(error: { path?: unknown }): string | undefined {
  const alias = pathOf(error)[0];
  return typeof alias === "string" ? alias : undefined;
}

/** A GraphQL answer whose every error names one subject's field: the others' fields succeeded. */
function splittableFailure(error: unknown, subjects: number): GraphqlFailure | null {
  if (typeof error !== "object" || error === null || !("errors" in error)) return null;
  const failure = error as GraphqlFailure;
  if (!Array.isArray(failure.errors) || failure.errors.length === 0) return null;
  const owned = failure.errors.every((e) => {
    const match = /^s(\d+)_/.exec(aliasOf(e) ?? "");
    return match !== null && Number(match[1]) < subjects;
  });
  return owned ? failure : null;
}

function ownData(data: Record<string, unknown>, prefix: string): Record<string, unknown> {
  const own: Record<string, unknown> = {};
  for (const [alias, value] of Object.entries(data)) {
    if (alias.startsWith(prefix)) own[alias.slice(prefix.length)] = value;
  }
  return own;
}
