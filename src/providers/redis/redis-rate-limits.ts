// Fleet-wide rate limits: rate-limiter-flexible's RateLimiterRedis on the store's client and prefix, insured in memory for outages.
import type { Cluster, Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";
import { takeOne } from "../memory/memory-rate-limits.js";
import type { RateLimitStore, WindowCounter } from "../rate-limits.js";

/** The insurance limiter, telling when it is asked (the library asks it when Redis failed or is not ready). */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly onUse: () => void,
  ) {
    super(options);
  }

  override consume(...args: Parameters<RateLimiterMemory["consume"]>) {
    this.onUse();
    return super.consume(...args);
  }
}

/**
 * Counters every replica on `redis` and `keyPrefix` shares: one script call (`rlflxIncr`: SET NX,
 * INCRBY, PTTL) per request, under `<keyPrefix>limit:<name>:<key>`, expiring with its window. A key
 * over its points is then refused from this process' memory until the window ends (no more Redis
 * calls). While Redis is not ready or fails, each replica counts alone in memory (N replicas → up
 * to N× the limit, never unlimited, never an error); `onOutage` is told each time.
 */
export function createRedisRateLimits(options: {
  redis: Redis | Cluster;
  keyPrefix: string;
  onOutage?: () => void;
}): RateLimitStore {
  return {
    counter({ name, points, durationSeconds }): WindowCounter {
      const insurance = new InsuranceLimiter({ keyPrefix: name, points, duration: durationSeconds }, () =>
        options.onOutage?.(),
      );
      const limiter = new RateLimiterRedis({
        // ioredis (single node or cluster): `useRedisPackage` stays off, it is for the `redis` package.
        storeClient: options.redis,
        keyPrefix: `${options.keyPrefix}limit:${name}`,
        points,
        duration: durationSeconds,
        inMemoryBlockOnConsumed: points + 1,
        // A reconnecting client goes to the insurance at once, not after its command timeout.
        rejectIfRedisNotReady: true,
        insuranceLimiter: insurance,
      });
      return { take: (key) => takeOne(limiter, key) };
    },
  };
}
