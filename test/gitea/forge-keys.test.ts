// The forge in the store's keys: GitHub's layout unchanged, a Gitea instance's record under its own hash tag.
import { describe, expect, it } from "vitest";
import { forgeOfInstallation, giteaInstallationRecordId } from "../../src/domain/forge.js";
import { FenceKeys, StoreKeys } from "../../src/providers/redis/keys.js";

const gitea1 = giteaInstallationRecordId(1);

describe("installation record ids by forge", () => {
  it.each([
    [1, { forge: "github", number: 1 }],
    [42, { forge: "github", number: 42 }],
    [2 ** 31 - 1, { forge: "github", number: 2 ** 31 - 1 }],
    [2 ** 48, { forge: "github", number: 2 ** 48 }],
    [gitea1, { forge: "gitea", number: 1 }],
    [giteaInstallationRecordId(7), { forge: "gitea", number: 7 }],
    [giteaInstallationRecordId(2 ** 31 - 1), { forge: "gitea", number: 2 ** 31 - 1 }],
  ])("%d is %o", (id, expected) => {
    expect(forgeOfInstallation(id)).toEqual(expected);
  });

  it("a Gitea record id is a safe integer above every GitHub installation id", () => {
    expect(Number.isSafeInteger(giteaInstallationRecordId(2 ** 31 - 1))).toBe(true);
    expect(gitea1).toBeGreaterThan(2 ** 48);
  });

  it.each([0, -1, 1.5, 2 ** 31])("refuses instance number %d", (instance) => {
    expect(() => giteaInstallationRecordId(instance)).toThrow(RangeError);
  });
});

describe("the key layout by forge", () => {
  const keys = new StoreKeys("ch:");
  const fence = new FenceKeys("ch:");

  it("keeps GitHub installations' keys byte for byte", () => {
    const key = { installationId: 1, repoId: 1296269, issue: 7 };
    expect(keys.subject(key, "rec")).toBe("ch:{i:1}:s:1296269:7:rec");
    expect(keys.deadlines(1)).toBe("ch:{i:1}:deadlines");
    expect(keys.repository(key)).toBe("ch:{i:1}:repo:1296269");
    expect(fence.subject(key, "links")).toBe("ch:{i:1}:f:s:1296269:7:links");
    expect(fence.comment(1, 99)).toBe("ch:{i:1}:f:comment:99");
  });

  it("puts a Gitea instance's record under {g:N}, one hash tag for all its keys", () => {
    const key = { installationId: gitea1, repoId: 1296269, issue: 7 };
    expect(keys.subject(key, "rec")).toBe("ch:{g:1}:s:1296269:7:rec");
    expect(keys.deadlines(gitea1)).toBe("ch:{g:1}:deadlines");
    expect(keys.actorSets(gitea1, null).loginSet).toBe("ch:{g:1}:live:login:-");
    expect(keys.queue({ installationId: gitea1, repoId: 3 }, "order")).toBe("ch:{g:1}:q:3:order");
    expect(fence.repo({ installationId: gitea1, repoId: 3 }, "prs")).toBe("ch:{g:1}:f:r:3:prs");
  });

  it("never gives the same repository and issue on the two forges the same key", () => {
    const github = { installationId: 1, repoId: 5, issue: 1 };
    const gitea = { installationId: gitea1, repoId: 5, issue: 1 };
    expect(keys.subject(github, "rec")).not.toBe(keys.subject(gitea, "rec"));
    expect(keys.base(1)).not.toBe(keys.base(gitea1));
  });
});
