// Coalesces concurrent calls of one script into one batch call per slot: while a call is in flight, later ones wait and go together.
import type { Cluster, Redis } from "ioredis";
import { runScript, runScriptBatch, type ScriptCall, type ScriptDefinition } from "./script-runner.js";

/** The most calls one batch carries by default; a longer queue goes as several batches at once. */
export const defaultMaxBatch = 64;

export interface ScriptBatcherStats {
  /** Calls asked of the batcher. */
  calls: number;
  /** Script calls sent to Redis: lone calls (the plain script) and batches. */
  scriptCalls: number;
  /** Of those, batches (two calls or more). */
  batches: number;
  /** The most calls one script call carried. */
  largest: number;
}

interface Pending {
  call: ScriptCall<string, string>;
  resolve(reply: unknown): void;
  reject(error: unknown): void;
}

/** The calls of one script on one slot: whether a script call is in flight, and the calls waiting for it. */
interface Lane {
  id: string;
  /** Script calls in flight. */
  inFlight: number;
  queue: Pending[];
}

/**
 * The part of a key Redis Cluster hashes: the text between the first `{` and the next `}` when it is
 * not empty, else the whole key. Keys with the same hash part are in the same slot.
 */
export function hashPart(key: string): string {
  const open = key.indexOf("{");
  if (open !== -1) {
    const close = key.indexOf("}", open + 1);
    if (close > open + 1) return key.slice(open + 1, close);
  }
  return key;
}

/**
 * Runs calls of a script so that calls arriving while one is in flight go together in one script
 * call (the script's batch variant, `ScriptSet`'s `batched`), which saves Redis the per-call cost of
 * EVALSHA. Calls are grouped per script and per hash part of their first key (the installation's hash
 * tag, `keys.ts`), so every key of a batch is in one cluster slot. A call with nothing in flight goes
 * at once as the plain script, so a lone call costs what it did unbatched.
 *
 * Each call keeps its own answer: a refusal or a script error for one is answered to it alone; a
 * connection failure rejects the calls of that script call (`StoreUnavailableError`), and the next
 * calls go on as usual.
 */
export class ScriptBatcher {
  readonly #redis: Redis | Cluster;
  readonly #maxBatch: number;
  readonly #lanes = new Map<string, Lane>();
  readonly #stats: ScriptBatcherStats = { calls: 0, scriptCalls: 0, batches: 0, largest: 0 };

  constructor(redis: Redis | Cluster, options: { maxBatch?: number } = {}) {
    const maxBatch = options.maxBatch ?? defaultMaxBatch;
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new Error("maxBatch must be a positive integer");
    this.#redis = redis;
    this.#maxBatch = maxBatch;
  }

  /** Runs `definition` for `call` (as `runScript` does), batched with the calls around it. */
  run<K extends string, A extends string, R>(
    definition: ScriptDefinition<K, A, R>,
    call: ScriptCall<K, A>,
  ): Promise<R> {
    if (definition.rest || call.rest !== undefined) {
      return Promise.reject(
        new Error(`the Redis script "${definition.name}" takes rest arguments, so it cannot be batched`),
      );
    }
    this.#stats.calls++;
    const lane = this.#lane(definition, call);
    return new Promise<R>((resolve, reject) => {
      const pending: Pending = {
        call: call as ScriptCall<string, string>,
        resolve: resolve as (reply: unknown) => void,
        reject,
      };
      if (lane.inFlight > 0) {
        lane.queue.push(pending);
        return;
      }
      this.#send(definition, lane, [pending]);
    });
  }

  /** What the batcher sent so far. */
  stats(): ScriptBatcherStats {
    return { ...this.#stats };
  }

  #lane(definition: ScriptDefinition, call: ScriptCall<string, string>): Lane {
    const first = definition.keys[0];
    // Script names are unique on a client (they name its commands), and have no spaces.
    const id = `${definition.name} ${first === undefined ? "" : hashPart(call.keys[first]!)}`;
    let lane = this.#lanes.get(id);
    if (!lane) {
      lane = { id, inFlight: 0, queue: [] };
      this.#lanes.set(id, lane);
    }
    return lane;
  }

  /** Sends `pending` now, split at the cap into script calls that go all at once. */
  #send(definition: ScriptDefinition, lane: Lane, pending: Pending[]): void {
    const chunks: Pending[][] = [];
    for (let i = 0; i < pending.length; i += this.#maxBatch)
      chunks.push(pending.slice(i, i + this.#maxBatch));
    lane.inFlight += chunks.length;
    for (const chunk of chunks) void this.#sendOne(definition, lane, chunk);
  }

  /**
   * A script call of the lane is back: once none is in flight (a queue over the cap went as several),
   * what queued meanwhile goes next, in the same turn, before the callers hear their answers (so a
   * caller that goes on to its next call finds the lane idle and is sent at once, alone).
   */
  #back(definition: ScriptDefinition, lane: Lane): void {
    lane.inFlight--;
    if (lane.inFlight > 0) return;
    if (lane.queue.length > 0) {
      const next = lane.queue;
      lane.queue = [];
      this.#send(definition, lane, next);
    } else {
      // Idle: forgotten, so a lane per installation does not outlive its calls.
      this.#lanes.delete(lane.id);
    }
  }

  /** One script call for `chunk`: the plain script for one call, the batch variant for more. */
  async #sendOne(definition: ScriptDefinition, lane: Lane, chunk: Pending[]): Promise<void> {
    this.#stats.scriptCalls++;
    if (chunk.length > 1) this.#stats.batches++;
    this.#stats.largest = Math.max(this.#stats.largest, chunk.length);
    let settle: () => void;
    if (chunk.length === 1) {
      const [only] = chunk as [Pending];
      settle = await runScript(this.#redis, definition, only.call).then(
        (reply) => () => only.resolve(reply),
        (error: unknown) => () => only.reject(error),
      );
    } else {
      settle = await runScriptBatch(
        this.#redis,
        definition,
        chunk.map((p) => p.call),
      ).then(
        (outcomes) => () =>
          outcomes.forEach((outcome, i) => {
            const { resolve, reject } = chunk[i]!;
            if (outcome.ok) resolve(outcome.reply);
            else reject(outcome.error);
          }),
        (error: unknown) => () => {
          for (const { reject } of chunk) reject(error);
        },
      );
    }
    this.#back(definition, lane);
    settle();
  }
}

const batchers = new WeakMap<Redis | Cluster, ScriptBatcher>();

/** The batcher of a client (one per client, so every store on it batches together). */
export function scriptBatcher(redis: Redis | Cluster): ScriptBatcher {
  let batcher = batchers.get(redis);
  if (!batcher) {
    batcher = new ScriptBatcher(redis);
    batchers.set(redis, batcher);
  }
  return batcher;
}
