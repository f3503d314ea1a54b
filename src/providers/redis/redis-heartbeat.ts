// A holder's heartbeat on Redis, the App's hottest call: keys built once per subject, concurrent heartbeats batched into one script call, the script's short reply read.
import type { Cluster, Redis } from "ioredis";
import type { SubjectKey } from "../../domain/claim.js";
import type { HeartbeatInput, HeartbeatLiveness, HeartbeatOk, HeartbeatOutcome } from "../liveness-store.js";
import { memberOf, type StoreKeys } from "./keys.js";
import { asArray, parseRecord, parseRefusal, toInt } from "./record-codec.js";
import { type ScriptBatcher, scriptBatcher } from "./script-batcher.js";
import { flag, optional, type ReplyOf, type ScriptCall } from "./script-runner.js";
import { parseSpendReply, parseUsageDecreased } from "./spend-codec.js";
import { heartbeatScript } from "./store-scripts.js";

/** How many subjects' heartbeat keys a store keeps built (the oldest built goes first). */
const heartbeatKeysKept = 20_000;

interface HeartbeatKeys {
  keys: ScriptCall<(typeof heartbeatScript.keys)[number], never>["keys"];
  member: string;
}

/** The heartbeat of `RedisClaimStore` (its scripts registered there). */
export class RedisHeartbeats {
  readonly #keys: StoreKeys;
  readonly #batcher: ScriptBatcher;
  readonly #keysBySubject = new Map<string, HeartbeatKeys>();

  constructor(redis: Redis | Cluster, keys: StoreKeys) {
    this.#keys = keys;
    this.#batcher = scriptBatcher(redis);
  }

  async beat(input: HeartbeatInput): Promise<HeartbeatOutcome> {
    const subject = this.#heartbeatKeysOf(input.key);
    const reply = await this.#batcher.run(heartbeatScript, {
      keys: subject.keys,
      args: {
        generation: input.generation,
        tokenDigest: input.tokenDigest,
        now: input.now,
        member: subject.member,
        phaseEditEveryMs: input.phaseEditEveryMs,
        hasPhase: flag(input.phase !== undefined),
        phase: input.phase ?? "",
        hasBlocker: flag(input.blocker !== undefined),
        blocker: input.blocker ?? "",
        waitUntil: optional(input.waitUntil),
        pullRequest: optional(input.pullRequest),
        ttlMs: optional(input.durations?.ttlMs),
        reclaimAfterMs: optional(input.durations?.reclaimAfterMs),
        heartbeatMs: optional(input.durations?.heartbeatMs),
        needsHuman: flag(input.needsHuman === true),
        hasUsage: flag(input.usage !== undefined),
        usageCost: optional(input.usage?.costMicros),
        usageTokens: optional(input.usage?.tokens),
        wantRecord: flag(input.wantRecord === true),
      },
    });
    if (reply.kind === "ok") return heartbeatOk(input, reply);
    if (reply.kind === "usage_decreased") return parseUsageDecreased(reply.figure, reply.last);
    return parseRefusal(reply);
  }

  /** The heartbeat's keys and member of a subject, built once per subject (a bounded number kept). */
  #heartbeatKeysOf(key: SubjectKey): HeartbeatKeys {
    const id = `${key.installationId}.${key.repoId}.${key.issue}`;
    let found = this.#keysBySubject.get(id);
    if (found === undefined) {
      found = {
        keys: {
          ...this.#keys.subjectKeys(key, { record: "rec", digests: "tok", spend: "spend", gaps: "gaps" }),
          ...this.#keys.indexKeys(key),
        },
        member: memberOf(key),
      };
      if (this.#keysBySubject.size >= heartbeatKeysKept) {
        this.#keysBySubject.delete(this.#keysBySubject.keys().next().value!);
      }
      this.#keysBySubject.set(id, found);
    }
    return found;
  }
}

/**
 * The heartbeat script's `ok`: the liveness it wrote (lastHeartbeatAt and the ask for a person are
 * the call's own, written as given), and the record when it came along (asked, or for an edit).
 */
function heartbeatOk(
  input: HeartbeatInput,
  reply: Extract<ReplyOf<typeof heartbeatScript>, { kind: "ok" }>,
): HeartbeatOk {
  const live: HeartbeatLiveness = {
    lastHeartbeatAt: input.now,
    durations: {
      ttlMs: toInt(String(reply.ttlMs)),
      reclaimAfterMs: toInt(String(reply.reclaimAfterMs)),
      heartbeatMs: toInt(String(reply.heartbeatMs)),
    },
  };
  if (reply.waitUntil) live.waitUntil = toInt(String(reply.waitUntil));
  if (input.needsHuman === true) live.needsHuman = true;
  if (reply.paused === "1") live.budgetPaused = true;
  if (reply.stallAsk === "1") live.stallAsk = true;
  const record = asArray(reply.record).length ? parseRecord(reply.record) : undefined;
  let ok: HeartbeatOk;
  if (reply.edit === "1") {
    if (!record)
      throw new Error("the Redis store's heartbeat script asked for a comment edit without the record");
    ok = { kind: "ok", live, editComment: true, record };
  } else {
    ok = record ? { kind: "ok", live, editComment: false, record } : { kind: "ok", live, editComment: false };
  }
  if (reply.askedBefore === "1") ok.needsHumanBefore = true;
  if (input.usage) ok.spend = parseSpendReply(reply.spentBefore, reply.spentAfter, reply.warned);
  if (reply.stalledSince) ok.stalledSince = toInt(String(reply.stalledSince));
  if (reply.stalledNow === "1") ok.stalledNow = true;
  if (reply.stallAskChange === "asked" || reply.stallAskChange === "withdrawn")
    ok.stallAskChange = reply.stallAskChange;
  return ok;
}
