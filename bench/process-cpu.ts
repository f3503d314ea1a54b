// CPU time of a process from /proc/<pid>/stat, in clock ticks (Linux): a server's own, and the waited-for children's of this one.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** Clock ticks per second (`getconf CLK_TCK`, usually 100: one tick is 10 ms, the resolution of every figure here). */
export function clockTicksPerSecond(): number {
  return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): field 3 (state) first. */
function statFields(pid: number | "self"): string[] {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  return text.slice(text.lastIndexOf(")") + 2).split(" ");
}

/** Field n (1-based, as proc(5) numbers them) of /proc/<pid>/stat. */
function statField(fields: string[], n: number): number {
  return Number(fields[n - 3]);
}

/** utime + stime (fields 14 and 15): the ticks the process (every thread of it) ran so far. */
export function processTicks(pid: number): number {
  const fields = statFields(pid);
  return statField(fields, 14) + statField(fields, 15);
}

/**
 * cutime + cstime of this process (fields 16 and 17): the ticks of its children it has waited for.
 * A load generator that runs as a child for one measurement has ended (and been waited for) when the
 * measurement ends, so the growth across it is that child's whole CPU time.
 */
export function waitedChildrenTicks(): number {
  const fields = statFields("self");
  return statField(fields, 16) + statField(fields, 17);
}
