// Writes representative claims with this checkout's Redis store and dumps their keys as a JSON fixture (test/store-upgrade.test.ts reads it back with a later release).
//
// Run by scripts/make-store-fixture.sh in a worktree of the release being fixed; it imports only the
// Redis store and ioredis, so the same file runs in an older checkout. Its keys live under a unique
// prefix on REDIS_URL (default the shared local Redis) and are deleted once dumped.
//
//   npx tsx scripts/store-fixture.ts <out.json> <release> <commit>
import { createHash, randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { Redis } from "ioredis";
import { RedisFenceStore } from "../src/providers/redis/redis-fence-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";

const [outPath, release, commit] = process.argv.slice(2);
if (!outPath || !release || !commit) {
  console.error("usage: npx tsx scripts/store-fixture.ts <out.json> <release> <commit>");
  process.exit(2);
}

const minute = 60_000;
const durations = { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute };
const installationId = 7;
const repoId = 1001;
const repo = "acme/widgets";
const caps = { perSession: 5, perLogin: 10 };
/** Test-only lease tokens: the store keeps only their digests, and the test presents the same digests. */
const digest = (name: string) => createHash("sha256").update(`store-fixture:${name}`).digest("hex");
const agent = (sessionId: string) => ({
  kind: "agent" as const,
  login: "octo-agent",
  runtime: "claude-code",
  sessionId,
});
const person = { kind: "human" as const, login: "alice" };
const subject = (issue: number) => ({ installationId, repoId, issue });

/** What each subject holds once written (the test's expectations and the digests it presents). */
const subjects = {
  live: { issue: 1, holder: "s-live", token: "live", pullRequest: 77, headSha: "a".repeat(40) },
  waiting: { issue: 2, holder: "s-wait", token: "waiting" },
  released: { issue: 3, holder: "s-done", token: "released" },
  intent: { issue: 4, holder: "s-slow", token: "intent", claimant: "s-next", claimantToken: "intent-next" },
  human: { issue: 5, person: person.login },
};

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: 1 });
const keyPrefix = `claimhold-test:store-fixture-${randomUUID().slice(0, 8)}:`;
const stores = createRedisStores({ redis, keyPrefix });
const fence = new RedisFenceStore({ redis, keyPrefix });
const writtenAt = Date.now();
let now = writtenAt - 45 * minute;

function claimInput(name: keyof typeof subjects, sessionId: string, token: string, takeover = false) {
  const key = subject(subjects[name].issue);
  return {
    key,
    repo,
    actor: agent(sessionId),
    taskClass: "author" as const,
    durations,
    branch: `agent/${sessionId}/${key.issue}-fix`,
    title: `Issue ${key.issue}`,
    issueNodeId: `I_kwDOfixture${key.issue}`,
    assigneeNodeId: "MDQ6VXNlcjE=",
    scope: ["src/**"],
    tokenDigest: digest(token),
    sessionKeyDigest: digest(`${sessionId}-key`),
    takeover,
    now,
    minGeneration: 0,
    appAssigned: true,
    caps,
  };
}

async function claimAndCommit(name: "live" | "waiting" | "released" | "intent"): Promise<void> {
  const { holder, token, issue } = subjects[name];
  const outcome = await stores.claims.claim(claimInput(name, holder, token));
  if (outcome.kind !== "created") throw new Error(`claim of #${issue} answered ${outcome.kind}`);
  await stores.claims.commitClaim(subject(issue), outcome.record.generation, {
    commentNodeId: `IC_kwDOfixture${issue}`,
    commentId: 9000 + issue,
  });
  await stores.installations.rememberInstallation(installationId);
  await stores.fleetLogins.rememberFleetLogin(installationId, "octo-agent");
}

async function writeScenarios(): Promise<void> {
  // The App reads the installation's epoch before its first claim (a later release's claim script sets it itself).
  await stores.claims.epoch(installationId, now);
  // #4's holder goes silent past its ttl, so another session's takeover records an intent.
  await claimAndCommit("intent");
  now += 35 * minute;
  for (const name of ["live", "waiting", "released"] as const) await claimAndCommit(name);
  now += minute;
  const beat = (name: "live" | "waiting", extra: Record<string, unknown>) =>
    stores.claims.heartbeat({
      key: subject(subjects[name].issue),
      generation: 1,
      tokenDigest: digest(subjects[name].token),
      now,
      phaseEditEveryMs: 10 * minute,
      ...extra,
    });
  await beat("live", { phase: "testing", pullRequest: 77, usage: { costMicros: 1_500_000, tokens: 4_000 } });
  await beat("waiting", {
    needsHuman: true,
    blocker: "needs a product decision",
    waitUntil: now + 20 * minute,
  });
  await stores.claims.release({
    key: subject(subjects.released.issue),
    generation: 1,
    tokenDigest: digest(subjects.released.token),
    now,
    outcome: "handoff",
  });
  // #4's holder is stale but not expired: the takeover waits out its grace as a recorded intent.
  const { claimant, claimantToken } = subjects.intent;
  const intent = await stores.claims.claim(claimInput("intent", claimant, claimantToken, true));
  if (intent.kind !== "takeover_pending") throw new Error(`the takeover of #4 answered ${intent.kind}`);
  await stores.claims.humanClaim({
    key: subject(subjects.human.issue),
    repo,
    actor: person,
    now,
    minGeneration: 0,
    release: false,
    appAssigned: true,
    issueNodeId: `I_kwDOfixture${subjects.human.issue}`,
    assigneeNodeId: "MDQ6VXNlcjI=",
  });
  await writeFenceAndQueue();
}

/**
 * The merge fence's notes of the live claim, its attestation of its PR's head and the PR's index
 * entry, and the candidate index of the repository (#6 blocked by #7, #7 free) after a refresh.
 */
async function writeFenceAndQueue(): Promise<void> {
  const { issue, holder, token, pullRequest, headSha } = subjects.live;
  const branch = `agent/${holder}/${issue}-fix`;
  await fence.recordClaim(subject(issue), { generation: 1, actor: agent(holder), branch });
  await fence.attest(subject(issue), 1, headSha, now, digest(token));
  await fence.putPullRequest(
    { installationId, repoId },
    {
      number: pullRequest,
      headSha,
      headRef: branch,
      author: { login: "octo-agent", bot: false },
      closes: [issue],
      linked: [issue],
    },
  );
  const candidate = (number: number, blockers: string[]) => ({
    issue: number,
    title: `Issue ${number}`,
    createdAt: now - number * minute,
    labels: ["agent-ready"],
    assignees: [],
    blockers,
    openSubIssues: 0,
    closingPullRequests: [],
  });
  await stores.queue.replaceCandidates(
    { installationId, repoId, repo },
    [candidate(6, [`${repo}#7`]), candidate(7, [])],
    now,
  );
}

type DumpedValue = string | string[] | Record<string, string> | [string, string][];
interface DumpedKey {
  /** The key without the run's prefix. */
  key: string;
  type: string;
  /** Time to live left when dumped (ms), or null for a key that does not expire. */
  ttlMs: number | null;
  value: DumpedValue;
}

async function dumpKey(key: string): Promise<DumpedKey> {
  const type = await redis.type(key);
  const pttl = await redis.pttl(key);
  const value: DumpedValue =
    type === "string"
      ? ((await redis.get(key)) ?? "")
      : type === "hash"
        ? Object.fromEntries(Object.entries(await redis.hgetall(key)).sort(([a], [b]) => a.localeCompare(b)))
        : type === "list"
          ? await redis.lrange(key, 0, -1)
          : type === "set"
            ? (await redis.smembers(key)).sort()
            : type === "zset"
              ? pairs(await redis.zrange(key, 0, -1, "WITHSCORES"))
              : unsupported(type, key);
  return { key: key.slice(keyPrefix.length), type, ttlMs: pttl >= 0 ? pttl : null, value };
}

function pairs(flat: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

function unsupported(type: string, key: string): never {
  throw new Error(`the fixture cannot dump ${key} of type ${type}`);
}

async function keysOfRun(): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(
      cursor,
      "MATCH",
      `${keyPrefix.replace(/[*?[\]\\]/g, "\\$&")}*`,
      "COUNT",
      1000,
    );
    keys.push(...batch);
    cursor = next;
  } while (cursor !== "0");
  return keys.sort();
}

try {
  await writeScenarios();
  const keys = await keysOfRun();
  const dumped = [];
  for (const key of keys) dumped.push(await dumpKey(key));
  const fixture = {
    release,
    commit,
    writtenAt,
    /** The scenarios' clock when the last write happened (ms); the test continues from it. */
    lastWriteAt: now,
    keyPrefix,
    installationId,
    repoId,
    repo,
    durations,
    subjects: Object.fromEntries(
      Object.entries(subjects).map(([name, s]) => [
        name,
        {
          ...s,
          ...("token" in s
            ? { tokenDigest: digest(s.token), sessionKeyDigest: digest(`${s.holder}-key`) }
            : {}),
          ...("claimantToken" in s
            ? { claimantTokenDigest: digest(s.claimantToken), claimantKeyDigest: digest(`${s.claimant}-key`) }
            : {}),
        },
      ]),
    ),
    keys: dumped,
  };
  writeFileSync(outPath, `${JSON.stringify(fixture, null, 2)}\n`);
  console.log(`wrote ${dumped.length} keys of release ${release} (${commit}) to ${outPath}`);
} finally {
  const keys = await keysOfRun();
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
}
