// `heartbeat`, `verify`, `attest` and `release`: single calls on the lease of this worktree.
import { type ReleaseOutcomeName, releaseOutcomes } from "../../../contract/claim-vocabulary.js";
import { clientFor, leaseCredentials, leaseDirOf, serverUrl } from "../../actions/agent-context.js";
import { callOnLease } from "../../actions/call-on-lease.js";
import { UsageError } from "../../actions/errors.js";
import { resolveCommit } from "../../actions/git.js";
import { readUsageFile, recordAsk, usageFileVariable } from "../../actions/heartbeat-body.js";
import type { LeaseFile } from "../../actions/lease-store.js";
import { releaseLeaseFile } from "../../actions/release-lease-file.js";
import { formatSubject } from "../../actions/subject.js";
import { type CommandSpec, issueOption } from "../command.js";
import { type CommandContext, currentLease, stringFlag } from "../context.js";
import { relativeTime } from "../relative-time.js";

/** The lease of this worktree (`--issue`) and the call's answer; a loss is recorded in the lease file. */
async function onLease<T>(
  ctx: CommandContext,
  call: (lease: LeaseFile) => Promise<T>,
): Promise<{ lease: LeaseFile; dir: string; value: T }> {
  const { dir, lease } = await currentLease(ctx);
  return { lease, dir, value: await callOnLease(dir, lease, call) };
}

export const heartbeatCommand: CommandSpec = {
  name: "heartbeat",
  summary:
    "send one heartbeat for the lease (optionally reporting a phase, PR, blocker, wait, usage or a need for a person)",
  arguments: [],
  options: {
    phase: { value: "<text>", description: "what the work is doing now (edits the claim comment)" },
    "pull-request": { value: "<n>", description: "the pull request of the work" },
    blocker: { value: "<text>", description: "what the work waits for" },
    "wait-until": {
      value: "<ISO-8601>",
      description: "an external wait: live until then (capped by maxWait)",
    },
    "usage-usd": {
      value: "<n>",
      description: `dollars this lease has spent so far (cumulative); without it, the figures of ${usageFileVariable} are sent when it is set`,
    },
    "needs-human": {
      value: "<why>",
      description:
        "ask for a person (label, one comment, a notification); keepalive repeats the ask until a heartbeat without it withdraws it",
    },
    ...issueOption,
  },
  notes: ["Exit 4: superseded or gone (also when the issue's budget ran out)."],
  async run(ctx) {
    const pr = stringFlag(ctx, "pull-request");
    if (pr !== undefined && !/^\d+$/.test(pr))
      throw new UsageError(`--pull-request must be a number, got "${pr}"`);
    const waitUntil = stringFlag(ctx, "wait-until");
    if (waitUntil !== undefined && Number.isNaN(Date.parse(waitUntil))) {
      throw new UsageError(`--wait-until must be an ISO-8601 time, got "${waitUntil}"`);
    }
    const ask = stringFlag(ctx, "needs-human")?.trim();
    if (stringFlag(ctx, "needs-human") !== undefined && !ask) {
      throw new UsageError("--needs-human needs the reason a person is needed");
    }
    if (ask && stringFlag(ctx, "blocker")) {
      throw new UsageError("--needs-human names the blocker itself; leave out --blocker");
    }
    const usage = await usageOf(ctx);
    const input = {
      ...(stringFlag(ctx, "phase") ? { phase: stringFlag(ctx, "phase") } : {}),
      ...(pr ? { pullRequest: Number(pr) } : {}),
      ...(stringFlag(ctx, "blocker") ? { blocker: stringFlag(ctx, "blocker") } : {}),
      ...(waitUntil ? { waitUntil: new Date(waitUntil).toISOString() } : {}),
      ...(ask ? { needsHuman: true, blocker: ask } : {}),
      ...(usage ? { usage } : {}),
    };
    // The ask stands for keepalive's beats until a heartbeat without it; the file goes first, so a
    // keepalive beat never undoes this one.
    const { lease, value } = await onLease(ctx, async (l) => {
      await recordAsk(await leaseDirOf(ctx), l, ask);
      return clientFor(ctx, serverUrl(ctx, l)).heartbeat(leaseCredentials(l), input, { signal: ctx.signal });
    });
    ctx.out.result({ ok: true, command: "heartbeat", subject: formatSubject(lease), ...value }, [
      `heartbeat ok: ${formatSubject(lease)} · generation ${value.generation} · ${value.state}${value.paused === "budget" ? " · paused: budget reached, waiting for a person's /budget" : ""} · expires ${relativeTime(value.expiresAt, ctx.now())}`,
    ]);
    return 0;
  },
};

/** `--usage-usd`, else the usage file's figures (unreadable: a usage error, since this is one explicit call). */
async function usageOf(ctx: CommandContext): Promise<{ costUsd?: number; tokens?: number } | undefined> {
  const flag = stringFlag(ctx, "usage-usd");
  if (flag !== undefined) {
    const costUsd = Number(flag);
    if (flag.trim() === "" || !Number.isFinite(costUsd) || costUsd < 0) {
      throw new UsageError(`--usage-usd must be a number of dollars (0 or more), got "${flag}"`);
    }
    return { costUsd };
  }
  const reading = await readUsageFile(ctx);
  if (reading.kind === "unreadable") {
    throw new UsageError(`${usageFileVariable} (${reading.path}) is unreadable: ${reading.reason}`);
  }
  return reading.kind === "usage" ? reading.usage : undefined;
}

export const verifyCommand: CommandSpec = {
  name: "verify",
  summary: "exit 0 only if this session still holds its claim (run before push, PR and merge)",
  arguments: [],
  options: { ...issueOption },
  notes: ["Exit 4: superseded or gone."],
  async run(ctx) {
    const { lease, value } = await onLease(ctx, (l) =>
      clientFor(ctx, serverUrl(ctx, l)).verify(leaseCredentials(l), { signal: ctx.signal }),
    );
    ctx.out.result({ ok: true, command: "verify", subject: formatSubject(lease), ...value }, [
      `holder: ${formatSubject(lease)} · generation ${value.generation} · ${value.state}`,
    ]);
    return 0;
  },
};

export const attestCommand: CommandSpec = {
  name: "attest",
  summary: "vouch for a commit with the lease, so the claim-hold check passes on it",
  arguments: [{ name: "sha", description: "any commit revision (default HEAD)", required: false }],
  options: { ...issueOption },
  notes: ["Exit 4: superseded or gone."],
  async run(ctx) {
    const revision = ctx.positionals[0] ?? "HEAD";
    const sha = /^[0-9a-f]{40}$/i.test(revision)
      ? revision.toLowerCase()
      : await resolveCommit(ctx.cwd, revision);
    const { lease, value } = await onLease(ctx, (l) =>
      clientFor(ctx, serverUrl(ctx, l)).attest(leaseCredentials(l), sha, { signal: ctx.signal }),
    );
    ctx.out.result(
      { ok: true, command: "attest", subject: formatSubject(lease), sha, generation: value.generation },
      [`attested ${sha} for ${formatSubject(lease)} (generation ${value.generation})`],
    );
    return 0;
  },
};

export const releaseCommand: CommandSpec = {
  name: "release",
  summary: "release the claim (default outcome: handoff) and forget the lease",
  arguments: [],
  options: {
    outcome: { value: "<outcome>", description: `${releaseOutcomes.join(", ")} (default handoff)` },
    note: { value: "<text>", description: "handoff note, posted as an audit comment on the issue" },
    ...issueOption,
  },
  notes: ["Exit 4: superseded or gone (the lease file is removed all the same)."],
  async run(ctx) {
    const outcome = stringFlag(ctx, "outcome") ?? "handoff";
    if (!releaseOutcomes.includes(outcome as ReleaseOutcomeName)) {
      throw new UsageError(`--outcome must be one of ${releaseOutcomes.join(", ")}, got "${outcome}"`);
    }
    const { dir, lease } = await currentLease(ctx);
    const note = stringFlag(ctx, "note");
    const released = await releaseLeaseFile(
      ctx,
      dir,
      lease,
      { outcome: outcome as ReleaseOutcomeName, ...(note ? { note } : {}) },
      { restore: { status: lease.status, detail: lease.statusDetail } },
    );
    // A repeated release answers the outcome recorded first, which may differ from this one.
    ctx.out.result(
      {
        ok: true,
        command: "release",
        subject: formatSubject(lease),
        outcome: released.outcome,
        generation: released.generation,
      },
      [`released ${formatSubject(lease)} (${released.outcome})`],
    );
    return 0;
  },
};
