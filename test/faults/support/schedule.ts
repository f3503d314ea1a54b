// A seeded PRNG and the randomized fault schedule: sessions, humans, janitor, webhooks, Redis and GitHub faults.

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
    /** One key of `weights`, drawn in proportion to its weight. */
    weighted: <K extends string>(weights: Record<K, number>): K => {
      const entries = Object.entries(weights) as [K, number][];
      let roll = next() * entries.reduce((sum, [, w]) => sum + w, 0);
      for (const [key, weight] of entries) {
        roll -= weight;
        if (roll < 0) return key;
      }
      return entries.at(-1)![0];
    },
  };
}
export type Random = ReturnType<typeof createRandom>;

/** FAULT_SEED reproduces a run; otherwise a fresh seed, printed by the suite. */
export function suiteSeed(): number {
  const fromEnv = process.env.FAULT_SEED;
  if (fromEnv && /^\d+$/.test(fromEnv)) return Number(fromEnv);
  return Math.floor(Math.random() * 2 ** 31);
}

export const stepKinds = {
  claim: 14,
  takeover: 5,
  tick: 14,
  longSilence: 4,
  kill: 4,
  zombie: 4,
  release: 4,
  verify: 4,
  janitor: 6,
  humanAssign: 2,
  humanReclaim: 2,
  humanUnassign: 1,
  redisFlush: 1,
  redisRestart: 1,
  redisOutage: 1,
  redisSlow: 1,
  githubError: 3,
  githubTimeout: 1,
  webhookDrop: 2,
  webhookReorder: 2,
  webhookRedeliver: 2,
  clockJump: 2,
} as const;
export type StepKind = keyof typeof stepKinds;
export const faultKinds: StepKind[] = [
  "redisFlush",
  "redisRestart",
  "redisOutage",
  "redisSlow",
  "githubError",
  "githubTimeout",
  "webhookDrop",
  "webhookReorder",
  "webhookRedeliver",
  "clockJump",
];
