// The machine a benchmark ran on, as docs/benchmarks.md names it: cores, CPU model, memory, Node and Redis versions.
import { execFileSync } from "node:child_process";
import { cpus, totalmem } from "node:os";

export function machineDescription(): string {
  const redis = execFileSync("redis-server", ["--version"], { encoding: "utf8" }).match(/v=(\S+)/)?.[1];
  const memory = Number((totalmem() / 1024 ** 3).toFixed(1)).toLocaleString("en-US");
  return `${cpus().length} CPUs (nproc) ${cpus()[0]?.model ?? ""}, ${memory} GiB RAM, Node ${process.version}, Redis ${redis ?? "?"}`;
}
