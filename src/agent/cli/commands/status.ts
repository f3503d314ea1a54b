// `status`: the leases of this worktree, each checked against the server.

import {
  clientFor,
  describeLease,
  leaseCredentials,
  leaseDirOf,
  serverUrl,
  sessionOf,
} from "../../actions/agent-context.js";
import { isLeaseLost } from "../../actions/errors.js";
import { listLeases, markLease } from "../../actions/lease-store.js";
import { formatSubject, parseSubject } from "../../actions/subject.js";
import { isClaimHoldError } from "../../client/index.js";
import { type CommandSpec, issueOption, showTokenOption } from "../command.js";
import { stringFlag } from "../context.js";
import { relativeTime } from "../relative-time.js";
import { formatTable } from "../table.js";

export const statusCommand: CommandSpec = {
  name: "status",
  summary: "show this worktree's session id and leases, each verified with the server",
  arguments: [],
  options: { ...issueOption, ...showTokenOption },
  notes: ["Exit 0 whenever the local state could be read; each lease's remote state is in the output."],
  async run(ctx) {
    const only = stringFlag(ctx, "issue");
    const subject = only ? formatSubject(parseSubject(only)) : undefined;
    const dir = await leaseDirOf(ctx);
    const session = await sessionOf(ctx);
    const leases = (await listLeases(dir)).filter((l) => !subject || formatSubject(l) === subject);
    const rows: Record<string, unknown>[] = [];
    const table: string[][] = [];
    for (const lease of leases) {
      let remote: Record<string, unknown>;
      let remoteText: string;
      try {
        const verified = await clientFor(ctx, serverUrl(ctx, lease), { retries: 1 }).verify(
          leaseCredentials(lease),
          {
            signal: ctx.signal,
          },
        );
        remote = { ...verified };
        remoteText = `holder, ${verified.state}, expires ${relativeTime(verified.expiresAt, ctx.now())}`;
      } catch (error) {
        if (!isClaimHoldError(error)) throw error;
        if (isLeaseLost(error)) {
          await markLease(dir, lease, error.code === "superseded" ? "superseded" : "gone", error.message);
        }
        remote = {
          holder: false,
          error: error.code,
          status: error.status,
          message: error.message,
          ...error.details,
        };
        remoteText = `NOT holder: ${error.code} (${error.message})`;
      }
      rows.push({ ...describeLease(lease, ctx.flags["show-token"] === true), remote });
      table.push([
        formatSubject(lease),
        String(lease.generation),
        lease.taskClass,
        lease.branch ?? "(none)",
        remoteText,
      ]);
    }
    const lines = [
      `session ${session.sessionId} (from ${session.source})`,
      ...(table.length === 0
        ? ["no lease in this worktree"]
        : formatTable(["ISSUE", "GEN", "CLASS", "BRANCH", "SERVER"], table)),
    ];
    ctx.out.result({ ok: true, command: "status", sessionId: session.sessionId, leases: rows }, lines);
    return 0;
  },
};
