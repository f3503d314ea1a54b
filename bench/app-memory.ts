// (d) Resident memory of the App's process before and after N live claims (Redis store; the simulator shares the process).
import { type BenchWorld, repo } from "./bench-world.js";
import { seedClaims } from "./seed-claims.js";

export interface MemoryFigures {
  claims: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  heapAfterMb: number;
  inventoryMs: number;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

export async function benchAppMemory(world: BenchWorld, claims: number): Promise<MemoryFigures> {
  global.gc?.();
  const before = process.memoryUsage();
  const target = world.stack.sim.state.requireRepo(repo);
  await world.stack.stores.installations.rememberInstallation(7);
  await seedClaims(world.stack.stores, {
    installationId: 7,
    repoId: target.id,
    repo,
    first: 1,
    count: claims,
    now: world.clock.now,
  });
  // Touch the App's read paths with every claim present (inventory of the repository, bounded at 200 rows).
  const started = performance.now();
  await world.client().inventory(repo, { limit: 200 });
  const inventoryMs = performance.now() - started;
  global.gc?.();
  const after = process.memoryUsage();
  return {
    claims,
    rssBeforeMb: mb(before.rss),
    rssAfterMb: mb(after.rss),
    heapAfterMb: mb(after.heapUsed),
    inventoryMs,
  };
}
