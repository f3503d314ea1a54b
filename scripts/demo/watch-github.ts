// Watches the simulated GitHub and the App while the demo runs: prints what changed and checks the invariants.
import type { SweepReport } from "../../src/janitor/janitor.js";
import type { GitHubSimulator } from "../../tools/github-sim/index.js";
import type { AgentSession } from "./agent-session.js";
import type { Timeline } from "./timeline.js";

interface Seen {
  labels: string;
  assignees: string;
  comments: number;
}

const markerPattern = /<!-- claim-hold:v1 (\{.*\}) -->/;

export interface WatchOptions {
  sim: GitHubSimulator;
  repo: string;
  timeline: Timeline;
  sessions: AgentSession[];
  lastReport: () => Promise<SweepReport | null>;
  /** Issues a human holds: their assignee must never be removed by the App. */
  humanHeld: Map<number, string>;
  /** Head SHA → "PR #n" for readable check lines. */
  heads: Map<string, string>;
}

export function watchGitHub(options: WatchOptions): { stop(): Promise<void> } {
  const { sim, repo, timeline } = options;
  const seen = new Map<number, Seen>();
  const verdicts = new Map<number, string>();
  const highestGeneration = new Map<number, number>();
  let lastReportAt = "";
  let stopped = false;

  const issues = () => sim.state.issuesOf(sim.state.requireRepo(repo)).filter((i) => !i.pull);

  const scanGitHub = () => {
    for (const raw of issues()) {
      const issue = sim.issue(repo, raw.number);
      const now: Seen = {
        labels: issue.labels.join(", ") || "—",
        assignees: issue.assignees.join(", ") || "—",
        comments: issue.comments.length,
      };
      const before = seen.get(issue.number);
      if (before) {
        if (before.labels !== now.labels)
          timeline.line("GitHub", `#${issue.number} labels: ${before.labels} → ${now.labels}`);
        if (before.assignees !== now.assignees)
          timeline.line("GitHub", `#${issue.number} assignees: ${before.assignees} → ${now.assignees}`);
        for (const comment of issue.comments.slice(before.comments)) {
          if (comment.author !== sim.bot.login || markerPattern.test(comment.body)) continue;
          timeline.line(
            "GitHub",
            `#${issue.number} claim-hold[bot]: ${comment.body.split("\n")[0]!.slice(0, 110)}`,
          );
        }
      }
      seen.set(issue.number, now);

      // Invariants visible on GitHub: one active claim comment per issue, generations never going back.
      const markers = issue.comments.flatMap((c) => {
        const match = markerPattern.exec(c.body);
        return match ? [JSON.parse(match[1]!) as { generation: number; state: string }] : [];
      });
      if (markers.filter((m) => m.state === "active").length > 1)
        timeline.violation(`#${issue.number} has two active claim comments`);
      const top = Math.max(0, ...markers.map((m) => m.generation));
      if (top < (highestGeneration.get(issue.number) ?? 0))
        timeline.violation(`#${issue.number} generation went back to ${top}`);
      highestGeneration.set(issue.number, top);
      const human = options.humanHeld.get(issue.number);
      if (human && !issue.assignees.includes(human))
        timeline.violation(`#${issue.number}: @${human}'s assignment was removed`);
    }
    for (const run of sim.checkRuns(repo)) {
      if (run.status !== "completed") continue;
      const verdict = `${run.conclusion}: ${run.output.title}`;
      if (verdicts.get(run.id) === verdict) continue;
      verdicts.set(run.id, verdict);
      timeline.count(`check:${run.conclusion}`);
      const head = options.heads.get(run.headSha) ?? run.headSha.slice(0, 7);
      timeline.line(
        "check claim-hold",
        `${head} @ ${run.headSha.slice(0, 7)} → ${verdict}`,
        run.conclusion === "success" ? "ok" : "bad",
      );
    }
  };

  const scanJanitor = async () => {
    const report = await options.lastReport();
    if (!report || report.at === lastReportAt) return;
    lastReportAt = report.at;
    for (const action of report.actions) {
      timeline.count(`janitor:${action.action}`);
      timeline.line("janitor", `${action.action} ${action.subject} (${action.reason})`, "warn");
    }
  };

  /** At most one lease per subject may pass the verify-hold gate at any instant (invariant 1). */
  const scanHolders = async () => {
    const leases = options.sessions.flatMap((s) => s.leases.map((lease) => ({ session: s, lease })));
    const holders = new Map<string, string[]>();
    await Promise.all(
      leases.map(async ({ session, lease }) => {
        try {
          await session.client.verify(lease);
          holders.set(lease.subject, [...(holders.get(lease.subject) ?? []), session.label]);
        } catch {
          // 409 superseded / 410 gone: not a holder.
        }
      }),
    );
    for (const [subject, who] of holders)
      if (who.length > 1) timeline.violation(`${subject} has two holders: ${who.join(" and ")}`);
  };

  const loop = (async () => {
    let tick = 0;
    while (!stopped) {
      scanGitHub();
      await scanJanitor();
      if (tick++ % 4 === 0) await scanHolders();
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();

  return {
    async stop() {
      stopped = true;
      await loop;
      scanGitHub();
      await scanJanitor();
      await scanHolders();
    },
  };
}
