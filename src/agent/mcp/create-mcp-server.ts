// The MCP server of SPEC §8.1: claim-hold's tools for any MCP-capable agent runtime, on the typed client.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { actorName, claimSubject, taskClassNames } from "../cli/commands/claim.js";
import {
  type CommandContext,
  clientFor,
  describeLease,
  leaseCredentials,
  leaseDirOf,
  serverUrl,
} from "../cli/context.js";
import { isLeaseLost, UsageError } from "../cli/errors.js";
import { resolveCommit } from "../cli/git.js";
import { type LeaseFile, markLease, readLease, removeLease, selectLease } from "../cli/lease-store.js";
import { listFreeIssues } from "../cli/list-free-issues.js";
import { formatSubject, parseRepo, parseSubject } from "../cli/subject.js";
import { isClaimHoldError, redactSecrets } from "../client/index.js";
import type { LeaseKeeper } from "./lease-keeper.js";

const repoField = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "must be owner/repo")
  .describe("The repository, as owner/repo.");
const subjectField = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+#\d+$/, "must be owner/repo#number")
  .optional()
  .describe("Which claim, as owner/repo#number; needed only when this session holds more than one.");

type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface McpServerDeps {
  ctx: CommandContext;
  keeper: LeaseKeeper;
  version: string;
}

/** The server with its six tools; the caller connects it to a transport and owns its lifetime. */
export function createMcpServer({ ctx, keeper, version }: McpServerDeps): McpServer {
  const server = new McpServer(
    { name: "claim-hold", version },
    {
      instructions:
        "claim-hold keeps one GitHub issue per agent session. Claim an issue with claim_issue before working " +
        "on it and work only on the branch it returns; this server heartbeats the claim for as long as it " +
        "runs, so the claim lives exactly as long as this session. Call verify_hold before every push, pull " +
        "request and merge, attest_commit after pushing, and release_claim when done. If any tool result " +
        "says the session LOST an issue, stop working on that issue at once.",
    },
  );
  const secrets = () => [ctx.env.GITHUB_TOKEN];

  /** Runs a tool: prefixes pending loss notices, turns every failure into an MCP tool error. */
  const tool =
    <A>(run: (args: A, extra: ToolExtra) => Promise<{ summary: string; data: Record<string, unknown> }>) =>
    async (args: A, extra: ToolExtra): Promise<CallToolResult> => {
      try {
        const { summary, data } = await run(args, extra);
        const notices = keeper.takeNotices();
        const text = `${summary}\n\n${JSON.stringify(data, null, 2)}`;
        return {
          content: [...notices.map((n) => ({ type: "text" as const, text: n })), { type: "text", text }],
          structuredContent: notices.length > 0 ? { ...data, lost: notices } : data,
        };
      } catch (error) {
        return errorResult(error, keeper.takeNotices(), secrets());
      }
    };

  /** The lease of this worktree a lease tool acts on; a loss found by the call is recorded and reported. */
  const onLease = async <T>(subject: string | undefined, call: (lease: LeaseFile) => Promise<T>) => {
    const dir = await leaseDirOf(ctx);
    const lease = await selectLease(dir, subject ? parseSubject(subject) : undefined);
    try {
      return { dir, lease, value: await call(lease) };
    } catch (error) {
      if (isLeaseLost(error) && isClaimHoldError(error)) {
        await keeper.forget(formatSubject(lease));
        await markLease(dir, lease, error.code === "superseded" ? "superseded" : "gone", error.message);
      }
      throw error;
    }
  };

  server.registerTool(
    "list_free_issues",
    {
      title: "List free issues",
      description:
        "List the open issues of a repository that nobody live is working on (no claim and no assignee, a " +
        "stale or reclaimable agent claim, or a leftover label). Pick one and call claim_issue; entries with " +
        "takeover: true need claim_issue with takeover: true.",
      inputSchema: {
        repo: repoField,
        labels: z
          .array(z.string().min(1).max(100))
          .max(10)
          .optional()
          .describe("Only issues carrying every one of these labels."),
        limit: z
          .number()
          .int()
          .min(1)
          .max(1000)
          .optional()
          .describe("How many open issues to read from GitHub (default 100)."),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    tool(async ({ repo, labels, limit }: { repo: string; labels?: string[]; limit?: number }) => {
      const name = parseRepo(repo);
      const { free, truncated } = await listFreeIssues(ctx, name, {
        limit: limit ?? 100,
        ...(labels ? { labels } : {}),
      });
      const summary =
        free.length === 0
          ? `No free issue in ${name}.`
          : `${free.length} free issue(s) in ${name}: ${free.map((f) => `#${f.issue}${f.takeover ? " (takeover)" : ""}`).join(", ")}.`;
      return { summary, data: { repo: name, free, truncated } };
    }),
  );

  server.registerTool(
    "claim_issue",
    {
      title: "Claim an issue",
      description:
        "Claim a GitHub issue for this session before working on it. Returns the branch to work on (on a " +
        "takeover: the previous holder's branch, to continue — never start a parallel one), `resume` details " +
        "on a takeover, and `overlaps`: other live claims whose declared files intersect your `scope` " +
        "(coordinate or pick other work). The server then heartbeats the claim by itself until the session " +
        "ends. Fails with `held` / `human_held` when someone else holds it (pick another issue) and " +
        "`cap_reached` when this session already holds its limit. With takeover: true a stale claim is taken " +
        "over; the call then waits out the holder's grace beat (minutes) itself.",
      inputSchema: {
        repo: repoField,
        issue: z.number().int().min(1).describe("The issue number."),
        taskClass: z
          .enum(taskClassNames as [string, ...string[]])
          .optional()
          .describe("author (default), reviewer, merger or conflict-fix."),
        branch: z
          .string()
          .min(1)
          .max(255)
          .optional()
          .describe("Branch for the work; default: the App names one (or the incumbent's on a takeover)."),
        scope: z
          .array(z.string().min(1).max(200))
          .max(50)
          .optional()
          .describe("Path globs, relative to the repository root, of the files you expect to touch."),
        takeover: z.boolean().optional().describe("Take over a stale or reclaimable claim."),
      },
      annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    tool(
      async (
        args: {
          repo: string;
          issue: number;
          taskClass?: string;
          branch?: string;
          scope?: string[];
          takeover?: boolean;
        },
        extra,
      ) => {
        const subject = { repo: parseRepo(args.repo), issue: args.issue };
        const progressToken = extra._meta?.progressToken;
        let waits = 0;
        const { lease, result, session } = await claimSubject(ctx, subject, {
          taskClass: args.taskClass ?? "author",
          takeover: args.takeover === true,
          ...(args.branch ? { branch: args.branch } : {}),
          ...(args.scope?.length ? { scope: args.scope } : {}),
          // A takeover waits out the incumbent's grace beat (minutes): progress keeps the call alive.
          onTakeoverPending: (pending) => {
            if (progressToken === undefined) return;
            waits++;
            void extra
              .sendNotification({
                method: "notifications/progress",
                params: {
                  progressToken,
                  progress: waits,
                  message: `takeover pending: waiting ${pending.retryAfterSeconds} s for the holder's grace beat`,
                },
              })
              .catch(() => {});
          },
        });
        keeper.keep(lease);
        const lines = [
          `${result.created ? "Claimed" : "Re-claimed"} ${formatSubject(subject)} (generation ${lease.generation}). ` +
            `Work on branch ${lease.branch ?? "(none given)"}; this server heartbeats the claim every ` +
            `${lease.heartbeatIntervalSeconds} s while it runs.`,
        ];
        if (result.resume) {
          lines.push(
            `Takeover: continue branch ${result.resume.branch ?? lease.branch} of ${actorName(result.resume.previousActor)} ` +
              `(generation ${result.resume.previousGeneration ?? "?"}); do not start a parallel branch.`,
          );
        }
        for (const overlap of result.overlaps) {
          lines.push(
            `Warning: ${overlap.subject} (${actorName(overlap.holder)}) is working on overlapping files: ${overlap.paths.join(", ")}.`,
          );
        }
        return {
          summary: lines.join("\n"),
          data: {
            created: result.created,
            sessionId: session.sessionId,
            lease: describeLease(lease, false),
            branch: lease.branch,
            resume: result.resume,
            overlaps: result.overlaps,
          },
        };
      },
    ),
  );

  server.registerTool(
    "claim_status",
    {
      title: "Claim status of an issue",
      description:
        "Show who holds an issue and in which state (active, stale, reclaimable, human, …), its recent claim " +
        "history, and whether this session holds it.",
      inputSchema: { repo: repoField, issue: z.number().int().min(1).describe("The issue number.") },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    tool(async ({ repo, issue }: { repo: string; issue: number }) => {
      const subject = { repo: parseRepo(repo), issue };
      const row = await clientFor(ctx, serverUrl(ctx)).subject(subject.repo, issue, { signal: ctx.signal });
      const local = await leaseDirOf(ctx)
        .then((dir) => readLease(dir, subject))
        .catch(() => null);
      const mine =
        local !== null &&
        local.status === "held" &&
        row.generation === local.generation &&
        row.state !== "human";
      const { history, ...rest } = row;
      return {
        summary:
          `${formatSubject(subject)}: ${row.state}` +
          (row.actor ? ` · held by ${actorName(row.actor)} · generation ${row.generation}` : "") +
          (mine ? " · this session holds it" : ""),
        data: {
          ...rest,
          history: (history ?? []).slice(0, 10),
          thisSession: local ? { holds: mine, generation: local.generation, status: local.status } : null,
        },
      };
    }),
  );

  server.registerTool(
    "verify_hold",
    {
      title: "Verify the claim is still yours",
      description:
        "Check with the server that this session still holds its claim. Call it before every push, pull " +
        "request and merge; if it fails with superseded or gone, stop working on the issue.",
      inputSchema: { subject: subjectField },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    tool(async ({ subject }: { subject?: string }) => {
      const { lease, value } = await onLease(subject, (l) =>
        clientFor(ctx, serverUrl(ctx, l)).verify(leaseCredentials(l), { signal: ctx.signal }),
      );
      return {
        summary: `This session holds ${formatSubject(lease)} (generation ${value.generation}, ${value.state}).`,
        data: { subject: formatSubject(lease), ...value },
      };
    }),
  );

  server.registerTool(
    "attest_commit",
    {
      title: "Attest a commit",
      description:
        "Vouch for a commit with this session's claim, so the required claim-hold check passes on pull " +
        "requests whose head it is. Call it after committing and before pushing. Default: HEAD of the " +
        "server's working directory.",
      inputSchema: {
        sha: z.string().min(1).max(200).optional().describe("A commit SHA or revision (default HEAD)."),
        subject: subjectField,
      },
      annotations: { idempotentHint: true, openWorldHint: true },
    },
    tool(async ({ sha, subject }: { sha?: string; subject?: string }) => {
      const revision = sha ?? "HEAD";
      const commit = /^[0-9a-f]{40}$/i.test(revision)
        ? revision.toLowerCase()
        : await resolveCommit(ctx.cwd, revision);
      const { lease, value } = await onLease(subject, (l) =>
        clientFor(ctx, serverUrl(ctx, l)).attest(leaseCredentials(l), commit, { signal: ctx.signal }),
      );
      return {
        summary: `Attested ${commit} for ${formatSubject(lease)}.`,
        data: { subject: formatSubject(lease), ...value, sha: commit },
      };
    }),
  );

  server.registerTool(
    "release_claim",
    {
      title: "Release the claim",
      description:
        "Release this session's claim: outcome completed when the work is done (e.g. the pull request is " +
        "open or merged), handoff to leave it for another session (put what is done and what is left in " +
        "note), abandoned to give it up. Heartbeats stop.",
      inputSchema: {
        outcome: z.enum(["handoff", "completed", "abandoned"]).describe("completed, handoff or abandoned."),
        note: z.string().max(4000).optional().describe("Handoff note, posted on the issue."),
        subject: subjectField,
      },
      annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    tool(
      async ({
        outcome,
        note,
        subject,
      }: {
        outcome: "handoff" | "completed" | "abandoned";
        note?: string;
        subject?: string;
      }) => {
        const dir = await leaseDirOf(ctx);
        const lease = await selectLease(dir, subject ? parseSubject(subject) : undefined);
        const name = formatSubject(lease);
        await markLease(dir, lease, "releasing", `release ${outcome} requested`);
        await keeper.forget(name);
        let released: Record<string, unknown>;
        try {
          released = await clientFor(ctx, serverUrl(ctx, lease)).release(
            leaseCredentials(lease),
            { outcome, ...(note ? { note } : {}) },
            { signal: ctx.signal },
          );
        } catch (error) {
          if (isLeaseLost(error)) await removeLease(dir, lease);
          else {
            await markLease(dir, lease, "held");
            keeper.keep(lease);
          }
          throw error;
        }
        await removeLease(dir, lease);
        return {
          summary: `Released ${name} (${String(released.outcome ?? outcome)}).`,
          data: { subject: name, ...released },
        };
      },
    ),
  );

  return server;
}

/** An MCP tool error carrying the server's `error` code and message; a lost lease is said plainly. */
export function errorResult(
  error: unknown,
  notices: string[],
  secrets: (string | undefined)[],
): CallToolResult {
  let body: Record<string, unknown>;
  if (isClaimHoldError(error)) {
    body = { error: error.code, status: error.status, message: error.message, ...error.details };
  } else if (error instanceof UsageError) {
    body = { error: "usage", message: error.message };
  } else {
    body = { error: "internal", message: error instanceof Error ? error.message : String(error) };
  }
  const lost = isLeaseLost(error)
    ? "This session no longer holds the issue: stop working on it now — no commit, push, pull request or merge for it. "
    : "";
  const text = redactSecrets(
    `${lost}${String(body.error)}: ${String(body.message)}\n\n${JSON.stringify(body, null, 2)}`,
    secrets,
  );
  return {
    isError: true,
    content: [...notices.map((n) => ({ type: "text" as const, text: n })), { type: "text", text }],
    structuredContent: JSON.parse(redactSecrets(JSON.stringify(body), secrets)) as Record<string, unknown>,
  };
}
