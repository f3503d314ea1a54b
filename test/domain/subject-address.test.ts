// How the dashboard addresses a subject, by table: GitHub's by repository (its URLs and forms unchanged), a Gitea subject with its installation record; malformed or misplaced records refused.
import { describe, expect, it } from "vitest";
import { subjectPageUrl } from "../../src/dashboard/github-links.js";
import { giteaInstallationRecordId } from "../../src/domain/forge.js";
import { formRecordOf, otherForgeRecordOf, subjectAddressOf } from "../../src/domain/subject-address.js";

const gitea = giteaInstallationRecordId(1);

describe("subjectAddressOf", () => {
  it.each([
    ["a GitHub installation: no record", 42, { repo: "octo/widgets", issue: 3 }],
    ["a Gitea record: named", gitea, { repo: "octo/widgets", issue: 3, installationId: gitea }],
  ])("%s", (_name, installationId, address) => {
    expect(subjectAddressOf(installationId, "octo/widgets", 3)).toStrictEqual(address);
  });
});

describe("subjectPageUrl", () => {
  it.each([
    ["GitHub, no record", undefined, "/subjects/octo/widgets/3"],
    ["GitHub, its record", 42, "/subjects/octo/widgets/3"],
    ["Gitea", gitea, `/subjects/gitea/${gitea}/octo/widgets/3`],
  ])("%s", (_name, installationId, url) => {
    expect(subjectPageUrl("octo/widgets", 3, installationId)).toBe(url);
  });
});

describe("otherForgeRecordOf: a /subjects/{forge}/{record}/… path's record", () => {
  it.each([
    ["gitea", String(gitea), gitea],
    ["gitea", String(giteaInstallationRecordId(2)), giteaInstallationRecordId(2)],
    ["gitea", "1", null],
    ["gitea", "281474976710656", null],
    ["github", "42", null],
    ["github", String(gitea), null],
    ["forgejo", String(gitea), null],
    ["gitea", `0${gitea}`, null],
    ["gitea", "2.8e14", null],
    ["gitea", "99999999999999999", null],
    ["gitea", "", null],
  ])("%s / %s → %s", (forge, record, id) => {
    expect(otherForgeRecordOf(forge, record)).toBe(id);
  });
});

describe("formRecordOf: a subject action form's installationId", () => {
  it.each([
    [undefined, {}],
    ["", {}],
    ["42", {}],
    [String(gitea), { installationId: gitea }],
    ["1e15", null],
    ["-1", null],
    ["9007199254740993", null],
    ["12345678901234567", null],
  ])("%s → %o", (field, record) => {
    expect(formRecordOf(field)).toStrictEqual(record);
  });
});
