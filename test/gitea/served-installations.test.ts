// The janitor's installation list names the Gitea instance's record beside GitHub's installations.
import { describe, expect, it } from "vitest";
import { giteaInstallationRecordId } from "../../src/domain/forge.js";
import { withGiteaRecord } from "../../src/wiring/served-installations.js";

const record = giteaInstallationRecordId(1);

describe("withGiteaRecord", () => {
  it.each([
    { github: [], listed: [record] },
    { github: [12, 7], listed: [7, 12, record] },
    { github: [7, record], listed: [7, record] },
  ])("GitHub's $github lists as $listed", async ({ github, listed }) => {
    const source = withGiteaRecord({ listInstallations: async () => github }, record);
    expect(await source.listInstallations()).toEqual(listed);
  });

  it("lists the record alone on a Gitea-only App (no GitHub to ask)", async () => {
    expect(await withGiteaRecord(undefined, record).listInstallations()).toEqual([record]);
  });
});
