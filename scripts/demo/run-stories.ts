// The demo's scripted fleet: who claims what, who crashes, who takes over, and when a human steps in.
import type { GitHubSimulator } from "../../tools/github-sim/index.js";
import type { SimMergeGroup as MergeGroup } from "../../tools/github-sim/merge-queue.js";
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
  // The fleet's filter: issues waiting for a design decision are not agent work, nor those pinned to a named session.
  const work = { repo, excludeLabels: ["needs-design", "pinned"] };
  // The first sessions ask for work one after another, so the demo prints the same picks every run;
  // picks at the same instant would get distinct issues just as well (the App reserves atomically).
  let turn: Promise<unknown> = Promise.resolve();
  const nextInTurn = (session: AgentSession) => {
    const picked = turn.then(() => session.next(work));
    turn = picked.catch(() => {});
    return picked;
  };

  const pushAndOpen = (session: AgentSession, title: string) => {
    const issue = session.issue!;
    const head = session.lease?.branch ?? `agent/${session.name}/${issue}`;
    const { sha } = sim.push({ repo, branch: head, login: stage.fleetLogin, message: title });
    const pull = sim.openPull({ repo, author: stage.fleetLogin, head, title, body: `Closes #${issue}` });
    stage.heads.set(sha, `PR #${pull.number}`);
    timeline.line(
      session.label,
      `pushed ${sha.slice(0, 7)} and opened PR #${pull.number} (closes #${issue})`,
    );
    return { sha, pull: pull.number, head, issue };
  };
  const push = (session: AgentSession, head: string, pull: number, message: string) => {
    const { sha } = sim.push({ repo, branch: head, login: stage.fleetLogin, message });
    stage.heads.set(sha, `PR #${pull}`);
    timeline.line(session.label, `pushed ${sha.slice(0, 7)} to ${head}`);
    return sha;
  };
  /** The simulator's merge queue, through its control API as a test in another process would drive it. */
  const queue = async (action: "enqueue" | "dequeue" | "merge", body: Record<string, unknown>) => {
    const response = await fetch(`${sim.url}/_sim/merge-queue/${action}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ repo, login: stage.maintainer, ...body }),
    });
    if (!response.ok) throw new Error(`merge queue ${action}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { groups?: MergeGroup[]; rebuilt?: MergeGroup[]; number?: number };
  };
  /** Names each new merge group's head after the PRs it holds, so the check lines read "merge group …". */
  const nameGroups = (groups: MergeGroup[] | undefined) => {
    for (const group of groups ?? []) {
      const members = sim.mergeQueue(repo).map((entry) => entry.number);
      const upTo = members.slice(0, members.findIndex((n) => group.headRef.includes(`/pr-${n}-`)) + 1);
      stage.heads.set(group.headSha, `merge group [${upTo.map((n) => `#${n}`).join(", ")}]`);
      timeline.count("merge-groups");
    }
  };
  const runOn = (sha: string) => sim.checkRuns(repo, sha).find((run) => run.name === "claim-hold");
  const conclusionOn = (sha: string) => runOn(sha)?.conclusion ?? null;
  const titleOn = (sha: string) => runOn(sha)?.output.title ?? null;
  /** The maintainer merges; GitHub closes the issue the PR closes. */
  const merge = (pull: number, issue: number) => {
    sim.closePull(repo, pull, stage.maintainer, { merge: true });
    sim.closeIssue({ repo, issue, login: stage.maintainer });
    timeline.line(`human/@${stage.maintainer}`, `merged PR #${pull}; GitHub closed #${issue}`, "ok");
  };

  const a = stage.session("a1", "claude-code");
  const b = stage.session("b2", "codex");
  const c = stage.session("c3", "opencode");
  const d = stage.session("d4", "pi");
  const e = stage.session("e5", "aider");
  const f = stage.session("f6", "home-loop");
  // The fleet starts: each session asks for work; nobody names an issue.
  const started = [a, b, c, d].map(nextInTurn);

  // A: a clean run on the top of the queue — pick, PR, attest, merged, released.
  const storyA = async () => {
    if (!(await started[0])) return;
    a.startBeating(beat);
    await at(timeline, 4);
    const { sha, pull, issue } = pushAndOpen(a, "Fix the flaky test");
    await at(timeline, 6);
    await a.attest(sha);
    await at(timeline, 10);
    merge(pull, issue);
    await a.release("completed", "merged");
  };

  // B crashes with an attested PR that sits in the merge queue behind Alice's typo fix; E takes it over,
  // so the queue's next group for B's PR fails at the merge point; B wakes up as a zombie and is fenced out.
  const storyB = async () => {
    if (!(await started[1])) return;
    b.startBeating(beat);
    await at(timeline, 3);
    const { sha, pull, head, issue } = pushAndOpen(b, "Fix the parser");
    await b.attest(sha);
    // Between b2's PR (3 s) and a1's (4 s), so the PR numbers are the same every run.
    await at(timeline, 3.5);
    const typoHead = "docs-typo";
    const typoSha = sim.push({ repo, branch: typoHead, login: stage.maintainer, message: "Fix a typo" }).sha;
    const typo = sim.openPull({ repo, author: stage.maintainer, head: typoHead, title: "Fix a typo" });
    stage.heads.set(typoSha, `PR #${typo.number}`);
    timeline.line(`human/@${stage.maintainer}`, `opened PR #${typo.number} "Fix a typo" (no issue)`, "info");
    await at(timeline, 6);
    b.crash();
    await at(timeline, 8);
    const queued = await queue("enqueue", { pulls: [typo.number, pull] });
    nameGroups(queued.groups);
    timeline.line(
      `human/@${stage.maintainer}`,
      `added PR #${typo.number} and PR #${pull} to the merge queue (a merge group each; b2's holds both)`,
      "info",
    );
    const zombieGroup = queued.groups?.at(-1)?.headSha ?? "";
    await storyE(issue, head, pull, typo.number, zombieGroup);
  };

  // E picks the last free issue and finishes it; then it takes over B's stale claim on the dashboard's word.
  const storyE = async (stale: number, head: string, pull: number, typo: number, zombieGroup: string) => {
    await at(timeline, 19);
    if (conclusionOn(zombieGroup) === "success") timeline.count("moment:zombie-group-passed");
    timeline.line(e.label, `sees #${stale} stale on the dashboard (b2 silent), asks to take it over`, "info");
    const taken = await e.claim({ repo, issue: stale, takeover: true });
    if (!taken) return;
    e.startBeating(beat);
    await at(timeline, 22);
    // The queue rebuilds the groups behind a PR that leaves it: B's PR gets a new group, judged again.
    const left = await queue("dequeue", { number: typo });
    timeline.line(
      `human/@${stage.maintainer}`,
      `took PR #${typo} out of the merge queue (one more word)`,
      "info",
    );
    nameGroups(left.rebuilt);
    await at(timeline, 24);
    const rebuilt = left.rebuilt?.at(-1)?.headSha ?? "";
    if (conclusionOn(rebuilt) === "failure" && titleOn(rebuilt) === "Superseded holder")
      timeline.count("moment:zombie-group-failed");
    await queue("dequeue", { number: pull });
    timeline.line("GitHub", `merge queue: removed PR #${pull} (its required check failed)`, "warn");
    await at(timeline, 26);
    timeline.line(b.label, "wakes up and heartbeats its old lease…", "warn");
    b.lease = b.leases.at(-1) ?? null;
    await b.beat();
    await at(timeline, 29);
    const next = push(e, head, pull, "Finish the parser fix");
    await at(timeline, 31);
    await e.attest(next);
    await at(timeline, 32);
    nameGroups((await queue("enqueue", { pulls: [pull] })).groups);
    timeline.line(`human/@${stage.maintainer}`, `queued PR #${pull} again`, "info");
    await at(timeline, 35);
    await queue("merge", {});
    sim.closeIssue({ repo, issue: stale, login: stage.maintainer });
    timeline.line("GitHub", `merge queue merged PR #${pull}; closed #${stale}`, "ok");
    await e.release("completed", "merged after takeover");
  };
  const storyELastIssue = async () => {
    await Promise.all(started);
    await at(timeline, 1);
    if (!(await nextInTurn(e))) return;
    e.startBeating(beat);
    await at(timeline, 8);
    const { sha, pull, issue } = pushAndOpen(e, "Bump dependencies");
    await e.attest(sha);
    await at(timeline, 14);
    merge(pull, issue);
    await e.release("completed", "merged");
  };

  // C crashes with no PR: the janitor marks it stale, then reaps it; C restarts and next gives it the issue back.
  const storyC = async () => {
    if (!(await started[2])) return;
    c.startBeating(beat);
    await at(timeline, 5);
    c.crash();
    await at(timeline, 39);
    timeline.line(c.label, "restarts and asks for work again", "info");
    if (await c.next(work)) {
      c.startBeating(beat);
      await at(timeline, 48);
      await c.release("handoff", "partial work pushed, picking up later");
    }
  };

  // D pauses past its ttl; F asks to take over, D beats inside the grace and wins; later Alice /reclaims it.
  // F came too late for the first round: its next finds the queue empty, and only later new work.
  const storyD = async () => {
    await Promise.all(started);
    await at(timeline, 2);
    await nextInTurn(f); // everything is taken: 409 queue_empty, the counts say why
    if (!(await started[3])) return;
    d.startBeating(beat);
    await at(timeline, 11);
    d.pause();
    await at(timeline, 23);
    const issue = d.issue!;
    timeline.line(f.label, `sees #${issue} stale on the dashboard (d4 silent), asks to take it over`, "info");
    const takeover = f.claim({ repo, issue, takeover: true });
    await at(timeline, 24.5);
    d.resume();
    await takeover; // the incumbent won: 409 held
    await at(timeline, 33);
    sim.comment({ repo, issue, login: stage.maintainer, body: "/reclaim" });
    timeline.line(`human/@${stage.maintainer}`, `commented /reclaim on #${issue}`, "warn");
    await at(timeline, 36);
    const added = sim.addIssue(repo, { title: "Add a changelog", author: stage.maintainer });
    timeline.line(`human/@${stage.maintainer}`, `opened #${added.number} "Add a changelog"`, "info");
    await at(timeline, 41);
    if (await f.next(work)) {
      f.startBeating(beat);
      // F is stuck on a question only a person can answer: it asks, Alice answers, F carries on.
      await at(timeline, 43);
      await f.askForHuman("Keep a Changelog format, or GitHub release notes? The issue does not say.");
      await at(timeline, 46);
      sim.comment({ repo, issue: f.issue!, login: stage.maintainer, body: "Keep a Changelog, please." });
      timeline.line(
        `human/@${stage.maintainer}`,
        `answered on #${f.issue}: "Keep a Changelog, please."`,
        "info",
      );
      await at(timeline, 47);
      await f.answered();
      await at(timeline, 50);
      await f.release("completed", "done");
    }
  };

  return [storyA(), storyB(), storyC(), storyD(), storyELastIssue()];
}
