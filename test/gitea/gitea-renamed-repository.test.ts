// A renamed Gitea repository whose old name another repository took: the App reads and writes for its claims under the name the repository id has now, never on the other repository.
//
// The store keys a claim by repository id and keeps the name it was claimed under (`record.repo`).
// After octo/widgets (id X) is renamed to octo/widgets-old and a new octo/widgets (id Y) is made, a
// correctly signed, correctly named delivery of X once made the App write on Y's issue of the same
// number (docs/reference/gitea-surfaces.md#renamed-repositories).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMarkerSeal } from "../../src/domain/marker-seal.js";
import { GiteaAssignmentProvider } from "../../src/providers/gitea/gitea-assignment-provider.js";
import { hookSecretOf } from "../../src/providers/gitea/gitea-hook-secret.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { Stores } from "../../src/providers/stores.js";
import type { SimIssue, SimRepo } from "../../tools/gitea-sim/index.js";
import { seedGiteaClaim } from "../gitea/seed-gitea-claim.js";
import {
  botLogin,
  botToken,
  type GiteaSimFixture,
  giteaInstallation,
  startGiteaSimFixture,
} from "../gitea/sim-fixture.js";
import { type AppHarness, startApp } from "../support/app-harness.js";

const instanceSecret = "review-gitea-instance-secret-0001";
const clock = { now: Date.parse("2026-12-05T10:00:00Z") };
let fixture: GiteaSimFixture;
let app: AppHarness;
let stores: Stores;

beforeAll(async () => {
  fixture = await startGiteaSimFixture(clock);
  stores = createMemoryStores();
  app = await startApp({
    stores,
    now: clock.now,
    gitea: {
      url: fixture.sim.url,
      token: botToken,
      webhookSecret: instanceSecret,
      installationId: 1,
      writeSpacingMs: 0,
    },
  });
});
afterAll(async () => {
  await app.close();
  await fixture.sim.close();
});

const deliverFor = (repo: SimRepo, event: string, payload: unknown, eventType?: string) =>
  fixture.sim.deliver({
    url: `${app.url}/api/gitea/webhooks`,
    secret: hookSecretOf(instanceSecret, repo.id),
    event,
    payload,
    ...(eventType ? { eventType } : {}),
  });

/** octo/widgets renamed to `to`; a new repository takes the old name, with issues up to `number`. */
function renameAndTakeOver(to: string, number: number): { taken: SimRepo; twin: SimIssue } {
  fixture.repo.name = to;
  const taken = fixture.sim.state.addRepo("octo/widgets", {
    [botLogin]: "admin",
    maintainer: "admin",
    someone: "admin",
  });
  let twin: SimIssue | undefined;
  while (!twin || twin.number < number)
    twin = fixture.sim.state.addIssue(taken, { title: "someone else's issue", author: "octo" });
  return { taken, twin };
}

describe("a renamed repository's claims, its old name now another repository's", () => {
  let deleted: SimIssue;
  let closed: SimIssue;
  let twins: SimIssue[];
  const key = (issue: SimIssue) => ({
    installationId: giteaInstallation,
    repoId: fixture.repo.id,
    issue: issue.number,
  });
  beforeAll(async () => {
    fixture.sim.state.addUser("someone");
    // Both claims are made while the repository is still octo/widgets.
    deleted = fixture.sim.state.addIssue(fixture.repo, { title: "Fix the widget", author: "octo" });
    closed = fixture.sim.state.addIssue(fixture.repo, { title: "Fix the gadget", author: "octo" });
    await seedGiteaClaim({ stores, fixture, now: app.clock.now }, deleted);
    await seedGiteaClaim({ stores, fixture, now: app.clock.now }, closed);
    const { taken, twin } = renameAndTakeOver("widgets-old", closed.number);
    twins = taken.issues;
    // The other repository's issue of the same number happens to carry a label of that name.
    twin.labelIds = [fixture.sim.state.label(taken, "agent:claimed").id];
  });
  const botWritesOnTwins = () =>
    twins.flatMap((t) => t.comments.filter((c) => c.author === botLogin).map(() => `#${t.number}`));

  it("the claim comment deleted on the renamed repository is put back there, never on the other repository's issue", async () => {
    const record = await stores.claims.get(key(deleted));
    const payload = fixture.sim.payloads.issueComment(
      fixture.repo,
      deleted,
      record?.commentId as number,
      "maintainer",
      "deleted",
    );
    expect(payload.repository.full_name).toBe("octo/widgets-old");
    deleted.comments = deleted.comments.filter((c) => c.id !== record?.commentId);
    const answer = await deliverFor(fixture.repo, "issue_comment", payload);
    expect(answer.status).toBe(200);
    expect(botWritesOnTwins()).toEqual([]);
    expect(deleted.comments.some((c) => c.author === botLogin)).toBe(true);
  });

  it("closing the renamed repository's issue completes its claim there, touching nothing of the other repository's", async () => {
    const twin = twins.find((t) => t.number === closed.number) as SimIssue;
    closed.state = "closed";
    const payload = fixture.sim.payloads.issues(fixture.repo, closed, "maintainer", "closed");
    const answer = await deliverFor(fixture.repo, "issues", payload);
    expect(answer.status).toBe(200);
    expect(twin.labelIds).toHaveLength(1);
    expect(await stores.claims.get(key(closed))).toMatchObject({ state: "completed" });
    expect(closed.labelIds).toEqual([]);
  });

  it("a read of a claim's subject by its record's name answers the renamed repository's issue, and counts the one name read", async () => {
    const provider = new GiteaAssignmentProvider({
      client: fixture.client,
      seal: createMarkerSeal("renamed-test"),
    });
    const ref = { installationId: giteaInstallation, repo: "octo/widgets", issue: closed.number };
    expect((await provider.status(ref))?.title).toBe("someone else's issue");
    const mark = fixture.sim.requests.length;
    const snapshot = await provider.status({ ...ref, repoId: fixture.repo.id });
    expect(snapshot).toMatchObject({
      title: "Fix the gadget",
      repo: "octo/widgets-old",
      repoId: fixture.repo.id,
    });
    expect(fixture.sim.routesSince(mark).slice(0, 3)).toEqual([
      "GET /repos/{owner}/{repo}/issues/{index}",
      "GET /repositories/{id}",
      "GET /repos/{owner}/{repo}/issues/{index}",
    ]);
  });
});
