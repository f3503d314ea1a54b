// A subject's failed attempts and the breaker's trip note: plain Redis lists and strings, read and written outside the claim scripts.
import type { Cluster, Redis } from "ioredis";
import type { SubjectKey } from "../../domain/claim.js";
import type { FailedAttempt } from "../../domain/failure-breaker.js";
import type { SubjectBreaker } from "../liveness-store.js";
import type { StoreKeys } from "./keys.js";
import { parseFailures } from "./record-codec.js";
import { callRedis } from "./script-runner.js";

export async function readFailures(
  redis: Redis | Cluster,
  keys: StoreKeys,
  key: SubjectKey,
): Promise<FailedAttempt[]> {
  const failuresKey = keys.subject(key, "fail");
  return parseFailures(await callRedis(() => redis.lrange(failuresKey, 0, -1)));
}

export async function clearFailures(redis: Redis | Cluster, keys: StoreKeys, key: SubjectKey): Promise<void> {
  const subjectKeys = keys.subjectKeys(key, { failures: "fail", trip: "trip" });
  await callRedis(() => redis.del(subjectKeys.failures, subjectKeys.trip));
}

export async function readBreakers(
  redis: Redis | Cluster,
  keys: StoreKeys,
  subjects: readonly SubjectKey[],
): Promise<SubjectBreaker[]> {
  if (subjects.length === 0) return [];
  // One installation's keys share its hash tag, so one pipeline (one round trip) reads them all.
  const pipeline = redis.pipeline();
  for (const key of subjects) {
    pipeline.lrange(keys.subject(key, "fail"), 0, -1);
    pipeline.get(keys.subject(key, "trip"));
  }
  const replies = await callRedis(() => pipeline.exec());
  return subjects.map((_, i) => {
    const [attemptsError, attempts] = replies?.[2 * i] ?? [];
    const [tripError, trip] = replies?.[2 * i + 1] ?? [];
    if (attemptsError || tripError) throw attemptsError ?? tripError;
    const through = trip === null || trip === undefined ? Number.NaN : Number(trip);
    return {
      attempts: parseFailures(attempts),
      ...(Number.isInteger(through) ? { tripWrittenThrough: through } : {}),
    };
  });
}

export async function markTripWritten(
  redis: Redis | Cluster,
  keys: StoreKeys,
  key: SubjectKey,
  throughGeneration: number,
): Promise<void> {
  const tripKey = keys.subject(key, "trip");
  await callRedis(() => redis.set(tripKey, String(throughGeneration)));
}
