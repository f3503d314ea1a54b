// The words of a claim request both sides must agree on: task classes and release outcomes (docs/reference/http-api.md#claims, #lease-calls).

export const taskClasses = ["author", "reviewer", "merger", "conflict-fix"] as const;
export type TaskClassName = (typeof taskClasses)[number];

/** `failed` counts toward the subject's failure breaker (`queue.maxFailures`); the others do not. */
export const releaseOutcomes = ["handoff", "completed", "abandoned", "failed"] as const;
export type ReleaseOutcomeName = (typeof releaseOutcomes)[number];
