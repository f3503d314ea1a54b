// The Redis notification outbox: enqueue, claim, settle and an operator's retry-now and drop are one Lua script each, under the `{notify}` hash tag.
import type { Cluster, Redis } from "ioredis";
import {
  type ClaimedDelivery,
  type DeliveryOutcome,
  droppedByOperator,
  eventMemoryMs,
  type OperatorDeliveryResult,
  type OutboxDelivery,
  type OutboxStore,
  RecentDelivery,
  type RetryingDelivery,
  recentKept,
  recentOf,
  retryingOf,
  retryingScanned,
  StoredDelivery,
} from "../outbox-store.js";
import { OutboxKeys } from "./keys.js";
import {
  callRedis,
  defineScript,
  literals,
  type ReplyOf,
  runScript,
  ScriptSet,
  tagged,
  tuple,
} from "./script-runner.js";

const enqueueScript = defineScript({
  name: "notifyEnqueue",
  keys: ["seen", "due", "entries"],
  args: ["now", "eventMemoryMs"],
  // Delivery id and stored delivery (JSON) pairs.
  rest: true,
  replies: literals(1, 0),
});

const claimScript = defineScript({
  name: "notifyClaim",
  keys: ["due", "entries", "attempts", "claims"],
  args: ["now", "leaseMs", "limit", "claimant"],
  replies: tuple("depth", "deliveries..."),
});

const settleScript = defineScript({
  name: "notifySettle",
  keys: ["due", "entries", "attempts", "claims", "recent"],
  args: ["id", "claimant", "outcome", "dueAt", "recent", "recentKept"],
  replies: literals(1, 0),
});

const retryingScript = defineScript({
  name: "notifyRetrying",
  keys: ["due", "entries", "attempts", "claims"],
  args: ["limit", "scan"],
  replies: tuple("deliveries..."),
});

const operatorReplies = tagged({
  done: ["entry", "attempts", "dueAt"],
  inFlight: ["leaseEndsAt"],
  missing: [],
});

const retryNowScript = defineScript({
  name: "notifyRetryNow",
  keys: ["due", "entries", "attempts", "claims"],
  args: ["id", "now"],
  replies: operatorReplies,
});

const dropScript = defineScript({
  name: "notifyDrop",
  keys: ["due", "entries", "attempts", "claims", "recent"],
  args: ["id", "now", "reason", "recentKept"],
  replies: operatorReplies,
});

export const outboxScripts = new ScriptSet([
  enqueueScript,
  claimScript,
  settleScript,
  retryingScript,
  retryNowScript,
  dropScript,
]);

export class RedisOutboxStore implements OutboxStore {
  readonly #redis: Redis | Cluster;
  readonly #keys: OutboxKeys;

  constructor(options: { redis: Redis | Cluster; keyPrefix: string }) {
    this.#redis = options.redis;
    this.#keys = new OutboxKeys(options.keyPrefix);
    outboxScripts.register(this.#redis);
  }

  async enqueue(eventId: string, deliveries: OutboxDelivery[], now: number): Promise<boolean> {
    const keys = this.#keys;
    const reply = await runScript(this.#redis, enqueueScript, {
      keys: { seen: keys.seen(eventId), due: keys.due(), entries: keys.entries() },
      args: { now, eventMemoryMs },
      rest: deliveries.flatMap((d) => [
        d.id,
        JSON.stringify(StoredDelivery.parse({ sinkId: d.sinkId, notification: d.notification })),
      ]),
    });
    return reply === 1;
  }

  async claimDue(input: { now: number; leaseMs: number; limit: number; claimant: string }) {
    const keys = this.#keys;
    const reply = await runScript(this.#redis, claimScript, {
      keys: { due: keys.due(), entries: keys.entries(), attempts: keys.attempts(), claims: keys.claims() },
      args: {
        now: input.now,
        leaseMs: input.leaseMs,
        limit: Math.max(0, input.limit),
        claimant: input.claimant,
      },
    });
    const { deliveries, corrupt, depth } = parseClaimReply(reply);
    // A delivery that no longer reads back (written by hand, or by a future version) can never be
    // sent: it leaves the outbox rather than being claimed again and again.
    for (const id of corrupt) await this.#settle(id, input.claimant, "dropped", 0, "");
    return { deliveries, depth, discarded: corrupt.length };
  }

  async settle(
    delivery: ClaimedDelivery,
    claimant: string,
    outcome: DeliveryOutcome,
    now: number,
  ): Promise<boolean> {
    const recent = outcome.kind === "retry" ? "" : JSON.stringify(recentOf(delivery, outcome, now));
    return this.#settle(
      delivery.id,
      claimant,
      outcome.kind,
      outcome.kind === "retry" ? outcome.at : 0,
      recent,
    );
  }

  async #settle(
    id: string,
    claimant: string,
    outcome: DeliveryOutcome["kind"],
    dueAt: number,
    recent: string,
  ): Promise<boolean> {
    const keys = this.#keys;
    const reply = await runScript(this.#redis, settleScript, {
      keys: {
        due: keys.due(),
        entries: keys.entries(),
        attempts: keys.attempts(),
        claims: keys.claims(),
        recent: keys.recent(),
      },
      args: { id, claimant, outcome, dueAt, recent, recentKept },
    });
    return reply === 1;
  }

  async recent(limit: number): Promise<RecentDelivery[]> {
    if (limit <= 0) return [];
    const items = await callRedis(() => this.#redis.lrange(this.#keys.recent(), 0, limit - 1));
    return items.flatMap((item) => {
      const parsed = RecentDelivery.safeParse(safeJson(item));
      return parsed.success ? [parsed.data] : [];
    });
  }

  async retrying(limit: number): Promise<RetryingDelivery[]> {
    if (limit <= 0) return [];
    const keys = this.#keys;
    const { deliveries: flat } = await runScript(this.#redis, retryingScript, {
      keys: { due: keys.due(), entries: keys.entries(), attempts: keys.attempts(), claims: keys.claims() },
      args: { limit, scan: retryingScanned },
    });
    const retrying: RetryingDelivery[] = [];
    for (let i = 0; i + 3 < flat.length; i += 4) {
      // One that does not read back is the next claim's to drop; it is not listed.
      const parsed = StoredDelivery.safeParse(safeJson(String(flat[i + 1])));
      if (!parsed.success) continue;
      const delivery = { id: String(flat[i]), ...parsed.data };
      retrying.push(retryingOf(delivery, Number(flat[i + 2]), Number(flat[i + 3])));
    }
    return retrying;
  }

  async depth(): Promise<number> {
    return callRedis(() => this.#redis.zcard(this.#keys.due()));
  }

  async retryNow(id: string, now: number): Promise<OperatorDeliveryResult> {
    const keys = this.#keys;
    const reply = await runScript(this.#redis, retryNowScript, {
      keys: { due: keys.due(), entries: keys.entries(), attempts: keys.attempts(), claims: keys.claims() },
      args: { id, now },
    });
    return operatorResultOf(id, reply);
  }

  async drop(id: string, now: number): Promise<OperatorDeliveryResult> {
    const keys = this.#keys;
    const reply = await runScript(this.#redis, dropScript, {
      keys: {
        due: keys.due(),
        entries: keys.entries(),
        attempts: keys.attempts(),
        claims: keys.claims(),
        recent: keys.recent(),
      },
      args: { id, now, reason: droppedByOperator, recentKept },
    });
    return operatorResultOf(id, reply);
  }
}

function operatorResultOf(id: string, reply: ReplyOf<typeof retryNowScript>): OperatorDeliveryResult {
  switch (reply.kind) {
    case "missing":
      return { kind: "missing" };
    case "inFlight":
      return { kind: "in-flight", leaseEndsAt: Number(reply.leaseEndsAt) };
    case "done": {
      const parsed = StoredDelivery.safeParse(safeJson(String(reply.entry)));
      return {
        kind: "done",
        delivery: parsed.success
          ? retryingOf({ id, ...parsed.data }, Number(reply.attempts), Number(reply.dueAt))
          : null,
      };
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `{depth, deliveries...}`: the deliveries that read back, and the ids of those that do not. */
function parseClaimReply({ depth, deliveries: flat }: ReplyOf<typeof claimScript>): {
  deliveries: ClaimedDelivery[];
  corrupt: string[];
  depth: number;
} {
  if (typeof depth !== "number") throw new Error("unexpected reply from the outbox's claim script");
  const deliveries: ClaimedDelivery[] = [];
  const corrupt: string[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) {
    const id = String(flat[i]);
    const parsed = StoredDelivery.safeParse(safeJson(String(flat[i + 1])));
    if (parsed.success) deliveries.push({ id, ...parsed.data, attempt: Number(flat[i + 2]) });
    else corrupt.push(id);
  }
  return { deliveries, corrupt, depth };
}
