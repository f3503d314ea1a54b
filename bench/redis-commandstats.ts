// Redis' own count of each command's calls and time (INFO commandstats), reset before a measurement with CONFIG RESETSTAT.
import type { Redis } from "ioredis";

export interface CommandStat {
  calls: number;
  /** Time inside the command, in µs (a script's: its own commands included). */
  usec: number;
}

/** Commands the benchmark itself sends around a measurement, left out of the figures. */
const ownCommands = new Set(["info", "config|resetstat", "config"]);

/** Parses `INFO commandstats`: `cmdstat_evalsha:calls=…,usec=…,usec_per_call=…,…` lines. */
export function parseCommandStats(info: string): Record<string, CommandStat> {
  const stats: Record<string, CommandStat> = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    const [, name, calls, usec] = match;
    if (!name || ownCommands.has(name)) continue;
    stats[name] = { calls: Number(calls), usec: Number(usec) };
  }
  return stats;
}

export async function resetCommandStats(redis: Redis): Promise<void> {
  await redis.config("RESETSTAT");
}

export async function readCommandStats(redis: Redis): Promise<Record<string, CommandStat>> {
  return parseCommandStats(await redis.info("commandstats"));
}

/** The redis-server's process id, as it reports it (`INFO server`). */
export async function redisServerPid(redis: Redis): Promise<number> {
  const pid = /^process_id:(\d+)/m.exec(await redis.info("server"))?.[1];
  if (!pid) throw new Error("INFO server names no process_id");
  return Number(pid);
}
