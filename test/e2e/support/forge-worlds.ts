// The e2e world on either forge behind one surface (agents, a person's acts delivered as webhooks, held writes, what the issue shows), for suites run once per forge.
import type { ClaimHoldClient } from "../../../src/agent/client/index.js";
import type { ClaimRecord } from "../../../src/domain/claim.js";
import type { AppHarness } from "../../support/app-harness.js";
import { fleet, installationId, maintainer, repo, startWorld } from "./e2e-world.js";
import { giteaBot, giteaFleet, giteaMaintainer, startGiteaWorld } from "./gitea-e2e-world.js";

export const forges = ["github", "gitea"] as const;
export type ForgeName = (typeof forges)[number];

export interface ForgeWorld {
  forge: ForgeName;
  readonly app: AppHarness;
  /** The agents' account on this forge. */
  fleetLogin: string;
  agent(): ClaimHoldClient;
  record(issue: number): Promise<ClaimRecord | null>;
  /** The issue as the forge shows it: its labels, assignees, and the bodies of the App's comments. */
  shown(issue: number): { labels: string[]; assignees: string[]; appComments: string[] };
  /** A maintainer's acts, queued as the forge's webhooks. */
  person: {
    unassign(issue: number, assignees: string[]): void;
    comment(issue: number, body: string): void;
    close(issue: number): void;
  };
  webhooks: { hold(): void; release(): void; pending(): number[]; deliverNow(seq: number): Promise<unknown> };
  /** Holds the next write about the issue (GitHub: its `ApplyTransition`; Gitea: its first REST write). */
  holdWrite(issue: number): { arrived: Promise<void>; release(): void };
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface ForgeWorldOptions {
  issues: { number: number; title: string }[];
  writeFenceWaitMs?: number;
}

export async function startForgeWorld(forge: ForgeName, options: ForgeWorldOptions): Promise<ForgeWorld> {
  return forge === "github" ? githubWorld(options) : giteaWorld(options);
}

async function githubWorld(options: ForgeWorldOptions): Promise<ForgeWorld> {
  const world = await startWorld(options);
  const { sim } = world;
  return {
    forge: "github",
    get app() {
      return world.app;
    },
    fleetLogin: fleet.login,
    agent: () => world.agent(),
    record: (issue) => world.stores.claims.get({ installationId, repoId: 1296269, issue }),
    shown(issue) {
      const shown = sim.issue(repo, issue);
      return {
        labels: shown.labels,
        assignees: shown.assignees,
        appComments: shown.comments.filter((c) => c.author.endsWith("[bot]")).map((c) => c.body),
      };
    },
    person: {
      unassign: (issue, assignees) => sim.unassign({ repo, issue, login: maintainer.login, assignees }),
      comment: (issue, body) => sim.comment({ repo, issue, login: maintainer.login, body }),
      close: (issue) => sim.closeIssue({ repo, issue, login: maintainer.login }),
    },
    webhooks: {
      hold: () => sim.webhooks.hold(),
      release: () => sim.webhooks.release(),
      pending: () => sim.webhooks.pending().map((d) => d.seq),
      deliverNow: (seq) => sim.webhooks.deliverNow(seq),
    },
    holdWrite(issue) {
      const nodeId = sim.issue(repo, issue).nodeId;
      return sim.hold({ operation: "ApplyTransition", bodyIncludes: nodeId });
    },
    flush: () => sim.flush(),
    close: () => world.close(),
  };
}

async function giteaWorld(options: ForgeWorldOptions): Promise<ForgeWorld> {
  const world = await startGiteaWorld(options);
  const { sim } = world;
  const issueOf = (number: number) => {
    const found = world.repo.issues.find((i) => i.number === number);
    if (!found) throw new Error(`no Gitea issue #${number}`);
    return found;
  };
  const login = giteaMaintainer.login;
  return {
    forge: "gitea",
    get app() {
      return world.app;
    },
    fleetLogin: giteaFleet.login,
    agent: () => world.agent(),
    record: (issue) => world.stores.claims.get(world.key(issue)),
    shown(issue) {
      const shown = issueOf(issue);
      return {
        labels: world.labelsOf(issue),
        assignees: shown.assignees,
        appComments: shown.comments.filter((c) => c.author === giteaBot.login).map((c) => c.body),
      };
    },
    person: {
      unassign: (issue, assignees) => sim.people.unassign({ repo, issue, login, assignees }),
      comment: (issue, body) => sim.people.comment({ repo, issue, login, body }),
      close: (issue) => sim.people.close({ repo, issue, login }),
    },
    webhooks: {
      hold: () => sim.webhooks.hold(),
      release: () => sim.webhooks.release(),
      pending: () => sim.webhooks.pending().map((d) => d.seq),
      deliverNow: (seq) => sim.webhooks.deliverNow(seq),
    },
    holdWrite: (issue) => sim.hold({ writes: true, issue }),
    flush: () => sim.webhooks.flush(),
    close: () => world.close(),
  };
}
