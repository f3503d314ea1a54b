// Key prefixes on a shared Redis server: a fresh one per run, and deletion of only its keys (never FLUSHALL).
import { randomBytes } from "node:crypto";
import type { Cluster, Redis } from "ioredis";

/** Every prefix handed out starts so; deletion refuses any other. */
const ownPrefix = "claimhold-test:";

/** A key prefix no other run (or other user of the server) shares. */
export function uniqueKeyPrefix(label = "run"): string {
  return `${ownPrefix}${process.pid}:${label}:${randomBytes(6).toString("hex")}:`;
}

/** The nodes a SCAN must visit: every master of a cluster, or the one server. */
export function scanNodes(client: Redis | Cluster): Redis[] {
  return client.isCluster ? (client as Cluster).nodes("master") : [client as Redis];
}

/** Deletes every key under `prefix` with SCAN + UNLINK (never FLUSHALL/FLUSHDB: the server is shared). */
export async function deleteKeysWithPrefix(client: Redis | Cluster, prefix: string): Promise<number> {
  if (!prefix.startsWith(ownPrefix))
    throw new Error(`refusing to delete keys outside the test prefix: ${prefix}`);
  const pattern = `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`;
  let deleted = 0;
  for (const node of scanNodes(client)) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      if (!keys.length) continue;
      // One key per UNLINK on a cluster node: it refuses a multi-key command across slots.
      if (client.isCluster) for (const key of keys) deleted += await node.unlink(key);
      else deleted += await node.unlink(...keys);
    } while (cursor !== "0");
  }
  return deleted;
}
