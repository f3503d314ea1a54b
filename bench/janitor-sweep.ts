// (b) One janitor sweep over N live claims with 0, then 100, due: Redis time, Redis commands and GitHub requests.
import { type BenchWorld, repo } from "./bench-world.js";
import { seedClaims } from "./seed-claims.js";

export interface SweepFigures {
  claims: number;
  due: number;
  sweepMs: number;
  storeMs: number;
  storeCalls: number;
  redisCommands: number;
  githubRequests: number;
  actions: Record<string, number>;
}

async function redisCommands(world: BenchWorld): Promise<number> {
  const info = await world.redis.client().info("stats");
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

async function measuredSweep(world: BenchWorld, claims: number, due: number): Promise<SweepFigures> {
  const before = { store: { ...world.storeTime }, commands: await redisCommands(world) };
  const mark = world.stack.sim.requests.mark();
  const started = performance.now();
  const report = await world.stack.app.services.janitor.sweep();
  const sweepMs = performance.now() - started;
  const commands = (await redisCommands(world)) - before.commands - 1; // the INFO itself
  const actions: Record<string, number> = {};
  for (const action of report.actions) actions[action.action] = (actions[action.action] ?? 0) + 1;
  return {
    claims,
    due,
    sweepMs,
    storeMs: world.storeTime.ms - before.store.ms,
    storeCalls: world.storeTime.calls - before.store.calls,
    redisCommands: commands,
    githubRequests: world.stack.sim.requests.since(mark).length,
    actions,
  };
}

/**
 * `due` claims are made through the App (client library) and go silent; the other `claims - due`
 * are live background claims put straight into the store. Sweeps run by hand; write spacing is off.
 */
export async function benchJanitorSweep(world: BenchWorld, options: { claims: number; due: number }) {
  const client = world.client();
  for (let issue = 1; issue <= options.due; issue++)
    await client.claim({ repo, issue, actor: { runtime: "bench", sessionId: `due-${issue}` } });
  await world.stack.sim.flush();
  const target = world.stack.sim.state.requireRepo(repo);
  const installationId = 7;
  await world.stack.stores.installations.rememberInstallation(installationId);
  // Background claims start later, so that they stay live while the first ones expire.
  world.clock.now += 5_000;
  await seedClaims(world.stack.stores, {
    installationId,
    repoId: target.id,
    repo,
    first: options.due + 1,
    count: options.claims - options.due,
    now: world.clock.now,
  });
  const none = await measuredSweep(world, options.claims, 0);
  // Past the due claims' reclaimAfter (20 s): each is reaped (no PR, no push).
  world.clock.now += 20_000;
  const some = await measuredSweep(world, options.claims, options.due);
  return { none, some };
}
