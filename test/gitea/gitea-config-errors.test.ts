// An invalid config file on Gitea: its errors name the file actually read (`.gitea/` or `.github/claim-hold.yml`), and the `claim-hold` commit status says so within its 140 characters.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitStatusDescriptionOf, maxStatusDescription } from "../../src/domain/check-values.js";
import { checkRunOf, decideCheckWrite } from "../../src/fence/check-run-plan.js";
import { GiteaChecksProvider } from "../../src/providers/gitea/gitea-checks-provider.js";
import { commitStatusOf } from "../../src/providers/gitea/gitea-commit-statuses.js";
import { GiteaIdentityProvider } from "../../src/providers/gitea/gitea-identity-provider.js";
import { createRepoConfigSource } from "../../src/wiring/repo-config-source.js";
import { type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const clock = { now: Date.parse("2026-12-03T10:00:00Z") };
let fixture: GiteaSimFixture;
beforeAll(async () => {
  fixture = await startGiteaSimFixture(clock);
});
afterAll(() => fixture.sim.close());

/** A fresh identity provider (its config cache empty) and config source, logging into `lines`. */
function configSource(lines: string[] = []) {
  const log = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
  const identity = new GiteaIdentityProvider({
    client: fixture.client,
    installationId: 1,
    now: () => clock.now,
  });
  return createRepoConfigSource(identity, log);
}

const noClaim = {
  conclusion: "success" as const,
  title: "No agent claim involved",
  summaryRows: [],
  text: "",
};

describe("an invalid config file on Gitea names the file read", () => {
  it("a YAML error in .gitea/claim-hold.yml: the error and the log name it (not .github/, which is valid)", async () => {
    fixture.repo.files.set(".gitea/claim-hold.yml", "labels: {claimed: [unclosed\n");
    fixture.repo.files.set(".github/claim-hold.yml", "labels: {}\n");
    const lines: string[] = [];
    const configs = configSource(lines);
    await configs.load(1, "octo/widgets");
    const error = configs.errorFor(1, "octo/widgets") ?? "";
    expect(error).toMatch(/^octo\/widgets: \.gitea\/claim-hold\.yml line \d+: /);
    expect(error).not.toContain(".github/");
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual([
      "invalid .gitea/claim-hold.yml; using defaults",
    ]);
  });

  it("a schema error in .gitea/claim-hold.yml names it", async () => {
    fixture.repo.files.set(".gitea/claim-hold.yml", "labels: {claimed: 42}\n");
    const configs = configSource();
    await configs.load(1, "octo/widgets");
    expect(configs.errorFor(1, "octo/widgets")).toMatch(/^\.gitea\/claim-hold\.yml: labels\.claimed: /);
  });

  it("without .gitea/claim-hold.yml, an error in .github/claim-hold.yml names that one", async () => {
    fixture.repo.files.delete(".gitea/claim-hold.yml");
    fixture.repo.files.set(".github/claim-hold.yml", "labels: {claimed: 42}\n");
    const configs = configSource();
    await configs.load(1, "octo/widgets");
    expect(configs.errorFor(1, "octo/widgets")).toMatch(/^\.github\/claim-hold\.yml: labels\.claimed: /);
    fixture.repo.files.delete(".github/claim-hold.yml");
  });
});

describe("the check run and commit status of a PR in a repository whose config is invalid", () => {
  const giteaError =
    "octo/widgets: .gitea/claim-hold.yml line 2: Flow sequence in block collection must end with a ]";

  it("the check run's annotation and summary name the file read; on GitHub they stay `.github/claim-hold.yml`", () => {
    const gitea = checkRunOf(noClaim, { subjects: [], configError: giteaError });
    expect(gitea.conclusion).toBe("neutral");
    expect(gitea.annotations).toEqual([expect.objectContaining({ path: ".gitea/claim-hold.yml", line: 2 })]);
    expect(gitea.summary).toContain("⚠️ `.gitea/claim-hold.yml` is invalid");
    expect(gitea.statusNote).toBe("config invalid (.gitea/claim-hold.yml line 2)");
    const github = checkRunOf(noClaim, {
      subjects: [],
      configError: "octo/widgets: .github/claim-hold.yml line 4: bad",
    });
    expect(github.annotations).toEqual([
      expect.objectContaining({ path: ".github/claim-hold.yml", line: 4 }),
    ]);
    expect(github.summary).toContain("⚠️ `.github/claim-hold.yml` is invalid");
  });

  it("the status description keeps the note whole after the title, within 140 characters", () => {
    const run = checkRunOf(noClaim, { subjects: [], configError: giteaError });
    expect(commitStatusOf(run.conclusion, run.title, run.detailsUrl, run.statusNote)).toMatchObject({
      state: "success",
      description: "No agent claim involved · config invalid (.gitea/claim-hold.yml line 2)",
    });
    const long = commitStatusDescriptionOf("x".repeat(300), run.statusNote);
    expect(long).toHaveLength(maxStatusDescription);
    expect(long.endsWith("… · config invalid (.gitea/claim-hold.yml line 2)")).toBe(true);
    // Without a config error the description is the title alone, as before.
    expect(commitStatusOf("success", noClaim.title).description).toBe("No agent claim involved");
  });

  it("a status already showing the note is not written again; one without it is", () => {
    const run = checkRunOf(noClaim, { subjects: [], configError: giteaError });
    const shown = (description: string) => ({
      kind: "commit-status" as const,
      id: 1,
      conclusion: "success",
      title: description,
      summary: null,
      text: null,
    });
    expect(decideCheckWrite(shown(commitStatusDescriptionOf(run.title, run.statusNote)), run)).toEqual({
      kind: "none",
    });
    expect(decideCheckWrite(shown(run.title), run)).toEqual({ kind: "update", id: 1 });
  });

  it("GiteaChecksProvider posts the note to Gitea", async () => {
    const { sim, client } = fixture;
    const checks = new GiteaChecksProvider({
      client,
      bot: { login: async () => "claim-hold-bot" },
      webUrl: sim.url,
    });
    const sha = "a".repeat(40);
    await checks.create(
      { installationId: 1, repo: "octo/widgets" },
      sha,
      checkRunOf(noClaim, { subjects: [], configError: giteaError }),
    );
    expect(fixture.repo.statuses.get(sha)?.map((status) => status.description)).toEqual([
      "No agent claim involved · config invalid (.gitea/claim-hold.yml line 2)",
    ]);
  });
});
