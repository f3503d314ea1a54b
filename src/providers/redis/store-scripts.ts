// The claim store's Lua scripts (lua/<name>-<keys>.lua) with the names of their keys and arguments.

import { failuresKept } from "../../domain/failure-breaker.js";
import {
  heartbeatGapsKept,
  heartbeatGapsTtlMs,
  historyLimit,
  rotatedTokensKept,
  takeoverIntentLifetimeFactor,
} from "../claim-records.js";
import { defineScript, literals, ScriptSet, tagged, tuple, value } from "./script-runner.js";

/** Keys every transition that moves a record in or out of the indexes touches. */
const indexKeys = ["deadlines", "holders"] as const;

/** Why a lease's token is refused (lua/includes/tokens.lua): the replies verify, heartbeat and release share. */
const leaseRefusals = {
  missing: [],
  invalid_token: [],
  superseded: ["current", "rotatedAt"],
  gone: ["reason", "current"],
} as const;

/** A script that answers 1 when it did its work and 0 when there was nothing to do. */
const doneOrNot = literals(1, 0);

export const claimScript = defineScript({
  name: "claim",
  keys: [
    "record",
    "highWater",
    "digests",
    "history",
    ...indexKeys,
    "loginSet",
    "sessionSet",
    "repository",
    "liveIndexed",
    "epoch",
    "repositories",
    "writeLock",
    "failures",
  ],
  args: [
    "now",
    "member",
    "claimant",
    "tokenDigest",
    "takeover",
    "minGeneration",
    "perSession",
    "perLogin",
    "hasSessionIdentity",
    "sessionKeyDigest",
    "leaseTokenDigest",
    "repoId",
    "writeLockOwner",
    "writeLockTtlMs",
    "maxFailures",
    "override",
  ],
  // The new record's fields, without generation and supersedes (only the script can decide them).
  rest: true,
  replies: tagged({
    created: ["record", "previous", "writeLocked", "failures"],
    failing: ["previous", "record", "failures"],
    tripped: ["failures"],
    reclaimed: ["record"],
    held: ["current", "intent"],
    human_held: ["current"],
    takeover_pending: ["current", "retryAfterMs"],
    cap_reached: ["limit", "max"],
  }),
});

export const commitReclaimScript = defineScript({
  name: "commitReclaim",
  keys: ["record", "digests"],
  args: ["generation", "tokenDigest", "now", "commentNodeId", "commentId"],
  replies: value("record", []),
});

export const commitClaimScript = defineScript({
  name: "commitClaim",
  keys: ["record"],
  args: ["generation", "commentNodeId", "commentId"],
  replies: doneOrNot,
});

export const rollbackClaimScript = defineScript({
  name: "rollbackClaim",
  keys: ["record", "history", ...indexKeys, "loginSet", "sessionSet", "repository", "failures"],
  args: ["generation", "now", "member", "hasPrevious", "hasSessionIdentity"],
  // The previous record's fields, when there is one.
  rest: true,
  replies: doneOrNot,
});

export const verifyScript = defineScript({
  name: "verify",
  keys: ["record", "digests"],
  args: ["generation", "tokenDigest", "now"],
  replies: tagged({ ok: ["record"], ...leaseRefusals }),
});

export const heartbeatScript = defineScript({
  name: "heartbeat",
  keys: ["record", "digests", ...indexKeys, "repository", "spend", "gaps"],
  args: [
    "generation",
    "tokenDigest",
    "now",
    "member",
    "phaseEditEveryMs",
    "hasPhase",
    "phase",
    "hasBlocker",
    "blocker",
    "waitUntil",
    "pullRequest",
    "ttlMs",
    "reclaimAfterMs",
    "heartbeatMs",
    "needsHuman",
    "hasUsage",
    "usageCost",
    "usageTokens",
    "wantRecord",
  ],
  replies: tagged({
    ok: [
      "edit",
      "askedBefore",
      "spentBefore",
      "spentAfter",
      "warned",
      "waitUntil",
      "ttlMs",
      "reclaimAfterMs",
      "heartbeatMs",
      "paused",
      "record",
      "stalledSince",
      "stalledNow",
      "stallAsk",
      "stallAskChange",
    ],
    usage_decreased: ["figure", "last"],
    ...leaseRefusals,
  }),
});

export const releaseScript = defineScript({
  name: "release",
  keys: ["record", "digests", "history", ...indexKeys, "repository", "failures"],
  args: ["generation", "tokenDigest", "now", "member", "outcome", "note"],
  replies: tagged({ released: ["record", "repeated", "failures", "stallAsked"], ...leaseRefusals }),
});

export const markSyncedScript = defineScript({
  name: "markSynced",
  keys: ["record"],
  args: ["generation"],
  replies: doneOrNot,
});

export const restoreScript = defineScript({
  name: "restore",
  keys: ["record", "highWater", "digests", "history", ...indexKeys, "loginSet", "sessionSet", "repository"],
  args: ["now", "member", "hasSessionIdentity", "generation", "tokenDigest", "actor"],
  // The restored record's fields.
  rest: true,
  replies: literals("restored", "exists"),
});

export const epochScript = defineScript({
  name: "epoch",
  keys: ["epoch"],
  args: ["now"],
  replies: value("epoch"),
});

export const endClaimScript = defineScript({
  name: "endClaim",
  keys: ["record", "highWater", "history", ...indexKeys, "repository", "failures"],
  args: ["generation", "now", "to", "bump", "endedBy", "requireSilentMs", "storeEpoch", "member", "failure"],
  replies: tagged({ ended: ["previous", "record", "failures"], skipped: ["reason", "current"] }),
});

export const markStaleScript = defineScript({
  name: "markStale",
  keys: ["record", "deadlines", "repository"],
  args: ["generation", "now", "requireSilentMs", "storeEpoch", "member"],
  replies: tagged({ marked: ["record"], skipped: ["reason", "current"] }),
});

export const humanClaimScript = defineScript({
  name: "humanClaim",
  keys: ["record", "highWater", "history", ...indexKeys, "repository"],
  args: ["now", "member", "minGeneration", "actor", "release", "ttlMs", "reclaimAfterMs", "heartbeatMs"],
  // The new record's fields, without generation, supersedes, durations and branch (copied by the script).
  rest: true,
  replies: tuple("record", "previous"),
});

export const recordPushScript = defineScript({
  name: "recordPush",
  keys: ["record"],
  args: ["generation", "at"],
  replies: literals(2, 1, 0),
});

export const withdrawStallAskScript = defineScript({
  name: "withdrawStallAsk",
  keys: ["record"],
  args: ["generation"],
  replies: doneOrNot,
});

export const forgetScript = defineScript({
  name: "forget",
  keys: ["record", "history", ...indexKeys, "repository"],
  args: ["now", "member"],
  replies: tagged({ revoked: ["previous"], kept: [] }),
});

export const clearNeedsHumanScript = defineScript({
  name: "clearNeedsHuman",
  keys: ["record", "failures"],
  args: ["generation", "now"],
  replies: tagged({
    cleared: ["record", "withdrewAsk", "failuresCleared"],
    skipped: ["reason", "current"],
  }),
});

export const markBudgetExhaustedScript = defineScript({
  name: "markBudgetExhausted",
  keys: ["record"],
  args: ["generation"],
  replies: doneOrNot,
});

export const markBudgetPausedScript = defineScript({
  name: "markBudgetPaused",
  keys: ["record"],
  args: ["generation"],
  replies: doneOrNot,
});

export const acquireLockScript = defineScript({
  name: "acquireLock",
  keys: ["lock"],
  args: ["owner", "ttlMs"],
  replies: doneOrNot,
});

export const releaseLockScript = defineScript({
  name: "releaseLock",
  keys: ["lock"],
  args: ["owner"],
  replies: doneOrNot,
});

export const lockWriteScript = defineScript({
  name: "lockWrite",
  keys: ["lock", "record"],
  args: ["owner", "ttlMs"],
  replies: tagged({ locked: ["record"], busy: [] }),
});

export const finishWriteScript = defineScript({
  name: "finishWrite",
  keys: ["record", "lock"],
  args: ["owner", "generation", "state", "stale", "commentNodeId", "commentId", "commentGeneration"],
  replies: value("record", []),
});

// The candidate index behind claims/next (src/providers/queue-store.ts), one repository's keys each.
export const queuePutScript = defineScript({
  name: "queuePut",
  keys: ["order", "facts", "meta", "names"],
  args: ["member", "facts", "defaultRanking", "repoName", "repoId"],
  replies: literals(1),
});

export const queuePatchScript = defineScript({
  name: "queuePatch",
  keys: ["order", "facts", "meta"],
  args: ["member", "patch", "defaultRanking"],
  replies: doneOrNot,
});

export const queueDropScript = defineScript({
  name: "queueDrop",
  keys: ["order", "facts", "reservations"],
  args: ["member"],
  replies: literals(1),
});

export const queueDropBlockerScript = defineScript({
  name: "queueDropBlocker",
  keys: ["facts"],
  // `needle`: a substring every stored facts entry listing the blocker contains (a prefilter).
  args: ["blocker", "needle"],
  replies: value("changed"),
});

export const queueReplaceScript = defineScript({
  name: "queueReplace",
  keys: ["order", "facts", "reservations", "meta", "names"],
  args: ["refreshedAt", "defaultRanking", "repoName", "repoId"],
  // member, facts pairs.
  rest: true,
  replies: literals(1),
});

export const queuePageScript = defineScript({
  name: "queuePage",
  keys: ["order", "facts", "meta"],
  args: ["ranking", "offset", "limit"],
  replies: tuple("refreshedAt", "total", "facts..."),
});

export const queueCandidateScript = defineScript({
  name: "queueCandidate",
  keys: ["meta", "facts"],
  args: ["member"],
  replies: tuple("refreshedAt", "facts"),
});

export const queueReserveScript = defineScript({
  name: "queueReserve",
  keys: ["reservations"],
  args: ["owner", "ttlMs", "now"],
  // The members to try, in order.
  rest: true,
  replies: value("member", null),
});

export const queueUnreserveScript = defineScript({
  name: "queueUnreserve",
  keys: ["reservations"],
  args: ["member", "owner"],
  replies: doneOrNot,
});

/** Every claim-store script, read once when this module loads. */
export const storeScripts = new ScriptSet(
  [
    claimScript,
    commitReclaimScript,
    commitClaimScript,
    rollbackClaimScript,
    verifyScript,
    heartbeatScript,
    releaseScript,
    markSyncedScript,
    restoreScript,
    epochScript,
    endClaimScript,
    markStaleScript,
    humanClaimScript,
    recordPushScript,
    withdrawStallAskScript,
    forgetScript,
    clearNeedsHumanScript,
    markBudgetExhaustedScript,
    markBudgetPausedScript,
    acquireLockScript,
    releaseLockScript,
    lockWriteScript,
    finishWriteScript,
    queuePutScript,
    queuePatchScript,
    queueDropScript,
    queueDropBlockerScript,
    queueReplaceScript,
    queuePageScript,
    queueCandidateScript,
    queueReserveScript,
    queueUnreserveScript,
  ],
  {
    HISTORY_LIMIT: historyLimit,
    TAKEOVER_INTENT_LIFETIME_FACTOR: takeoverIntentLifetimeFactor,
    ROTATED_TOKENS_KEPT: rotatedTokensKept,
    FAILURES_KEPT: failuresKept,
    HEARTBEAT_GAPS_KEPT: heartbeatGapsKept,
    HEARTBEAT_GAPS_TTL_MS: heartbeatGapsTtlMs,
  },
  // Concurrent heartbeats go to Redis together (script-batcher.ts).
  { batched: [heartbeatScript] },
);
