// The demo's scripted fleet: who claims what, who crashes, who takes over, and when a human steps in.
import type { GitHubSimulator } from "../../tools/github-sim/index.js";
import type { AgentSession } from "./agent-session.js";
import type { Timeline } from "./timeline.js";

export interface Stage {
  sim: GitHubSimulator;
  repo: string;
  timeline: Timeline;
  fleetLogin: string;
  maintainer: string;
  heads: Map<string, string>;
  session(name: string, runtime: string): AgentSession;
  heartbeatSeconds: number;
}

/** Resolves at `seconds` after the demo started. */
function at(timeline: Timeline, seconds: number): Promise<void> {
  const wait = Math.max(0, seconds - timeline.elapsed()) * 1000;
  return new Promise((resolve) => setTimeout(resolve, wait));
}

/** Every story runs on its own clock; together they take about 55 s. */
export function runStories(stage: Stage): Promise<void>[] {
  const { sim, repo, timeline, heartbeatSeconds: beat } = stage;
  const branchOf = (session: AgentSession, issue: number) => `agent/${session.name}/${issue}-task`;

  const pushAndOpen = (session: AgentSession, issue: number, title: string) => {
    const head = branchOf(session, issue);
    const { sha } = sim.push({ repo, branch: head, login: stage.fleetLogin, message: title });
    const pull = sim.openPull({ repo, author: stage.fleetLogin, head, title, body: `Closes #${issue}` });
    stage.heads.set(sha, `PR #${pull.number}`);
    timeline.line(
      session.label,
      `pushed ${sha.slice(0, 7)} and opened PR #${pull.number} (closes #${issue})`,
    );
    return { sha, pull: pull.number, head };
  };
  const push = (session: AgentSession, head: string, pull: number, message: string) => {
    const { sha } = sim.push({ repo, branch: head, login: stage.fleetLogin, message });
    stage.heads.set(sha, `PR #${pull}`);
    timeline.line(session.label, `pushed ${sha.slice(0, 7)} to ${head}`);
    return sha;
  };
  const merge = (pull: number) => {
    sim.closePull(repo, pull, stage.maintainer, { merge: true });
    timeline.line(`human/@${stage.maintainer}`, `merged PR #${pull}`, "ok");
  };

  // A: a clean run — claim, PR, attest, merged, released.
  const storyA = async () => {
    const a = stage.session("a1", "claude-code");
    await a.claim({ repo, issue: 1, branch: branchOf(a, 1) });
    a.startBeating(beat);
    await at(timeline, 4);
    const { sha, pull } = pushAndOpen(a, 1, "Fix the parser");
    await at(timeline, 6);
    await a.attest(sha);
    await at(timeline, 10);
    merge(pull);
    await a.release("completed", "merged");
  };

  // B crashes with an attested PR; E takes over, B wakes up as a zombie and is fenced out.
  const storyB = async () => {
    const b = stage.session("b2", "codex");
    const e = stage.session("e5", "aider");
    await b.claim({ repo, issue: 2, branch: branchOf(b, 2) });
    b.startBeating(beat);
    await at(timeline, 1);
    await e.claim({ repo, issue: 1 }); // duplicate pickup: refused
    await at(timeline, 3);
    const { sha, pull, head } = pushAndOpen(b, 2, "Add retries");
    await b.attest(sha);
    await at(timeline, 6);
    b.crash();
    await at(timeline, 19);
    const taken = await e.claim({ repo, issue: 2, takeover: true });
    if (!taken) return;
    e.startBeating(beat);
    await at(timeline, 26);
    timeline.line(b.label, "wakes up and heartbeats its old lease…", "warn");
    b.lease = b.leases.at(-1) ?? null;
    await b.beat();
    await at(timeline, 29);
    const next = push(e, head, pull, "Finish retries");
    await at(timeline, 31);
    await e.attest(next);
    await at(timeline, 35);
    merge(pull);
    await e.release("completed", "merged after takeover");
  };

  // C crashes with no PR: the janitor marks it stale, then reaps it; C restarts and claims again.
  const storyC = async () => {
    const c = stage.session("c3", "opencode");
    await c.claim({ repo, issue: 3, branch: branchOf(c, 3) });
    c.startBeating(beat);
    await at(timeline, 5);
    c.crash();
    await at(timeline, 40);
    timeline.line(c.label, "restarts, claims again", "info");
    if (await c.claim({ repo, issue: 3, branch: branchOf(c, 3) })) {
      c.startBeating(beat);
      await at(timeline, 48);
      await c.release("handoff", "partial work pushed, picking up later");
    }
  };

  // D pauses past its ttl; F asks to take over, D beats inside the grace and wins; later Alice /reclaims #4.
  const storyD = async () => {
    const d = stage.session("d4", "pi");
    const f = stage.session("f6", "home-loop");
    await d.claim({ repo, issue: 4, branch: branchOf(d, 4) });
    d.startBeating(beat);
    await at(timeline, 2);
    await f.claim({ repo, issue: 5 }); // Alice's issue: human_held
    await at(timeline, 11);
    d.pause();
    await at(timeline, 23);
    const takeover = f.claim({ repo, issue: 4, takeover: true });
    await at(timeline, 24.5);
    d.resume();
    await takeover; // the incumbent won: 409 held
    await at(timeline, 33);
    sim.comment({ repo, issue: 4, login: stage.maintainer, body: "/reclaim" });
    timeline.line(`human/@${stage.maintainer}`, "commented /reclaim on #4", "warn");
    await at(timeline, 38);
    if (await f.claim({ repo, issue: 6, branch: branchOf(f, 6) })) {
      f.startBeating(beat);
      await at(timeline, 50);
      await f.release("completed", "done");
    }
  };

  return [storyA(), storyB(), storyC(), storyD()];
}
