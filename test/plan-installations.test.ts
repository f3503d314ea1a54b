// Which installations a janitor sweep visits and when it must ask GitHub for them (pure, by table).
import { describe, expect, it } from "vitest";
import {
  type InstallationEvidence,
  listReason,
  lostInstallations,
  planVisit,
} from "../src/janitor/plan-installations.js";

const at = 1_000;
const evidence = (over: Partial<InstallationEvidence>): InstallationEvidence => ({
  reconcile: false,
  stored: [],
  listed: null,
  epochs: new Map(),
  ...over,
});

describe("listReason", () => {
  it.each<[string, Partial<InstallationEvidence>, string | null]>([
    ["a reconcile pass always reads the list", { reconcile: true, stored: [1] }, "reconcile"],
    ["an empty set never checked against GitHub", {}, "store-empty"],
    ["an empty set where GitHub listed installations", { listed: { ids: [1], at } }, "store-empty"],
    ["an empty set, and GitHub said the App has none", { listed: { ids: [], at } }, null],
    ["a set never checked against GitHub is trusted", { stored: [1, 2] }, null],
    [
      "a set that names every listed installation, epochs older than the list",
      {
        stored: [1, 2],
        listed: { ids: [1, 2], at },
        epochs: new Map([
          [1, at],
          [2, at - 5],
        ]),
      },
      null,
    ],
    [
      "a set that forgot a listed installation",
      { stored: [2], listed: { ids: [1, 2], at }, epochs: new Map([[2, at]]) },
      "store-forgot",
    ],
    [
      "an installation whose data began again after the list was read",
      {
        stored: [1, 2],
        listed: { ids: [1, 2], at },
        epochs: new Map([
          [1, at],
          [2, at + 1],
        ]),
      },
      "store-epoch-newer",
    ],
    [
      "a new installation (not listed) with a fresh epoch is not a loss",
      { stored: [1, 3], listed: { ids: [1], at }, epochs: new Map([[1, at]]) },
      null,
    ],
  ])("%s → %s", (_name, over, reason) => {
    expect(listReason(evidence(over))).toBe(reason);
  });
});

describe("lostInstallations", () => {
  it("names the listed installations the store forgot or began again, nothing without a list", () => {
    expect(lostInstallations(evidence({ stored: [1] }))).toEqual([]);
    expect(
      lostInstallations(
        evidence({
          stored: [2, 3],
          listed: { ids: [1, 2, 3], at },
          epochs: new Map([
            [2, at + 1],
            [3, at],
          ]),
        }),
      ),
    ).toEqual([1, 2]);
  });
});

describe("planVisit", () => {
  it("a reconcile pass visits and reconciles the store's set ∪ GitHub's list", () => {
    expect(planVisit({ reconcile: true, stored: [3, 1], fetched: [2, 1], lost: [] })).toEqual({
      visit: [1, 2, 3],
      reconcile: [1, 2, 3],
    });
  });

  it("a sweep that found a loss reconciles only what the store lost", () => {
    expect(planVisit({ reconcile: false, stored: [1, 3], fetched: [1, 2, 3], lost: [3] })).toEqual({
      visit: [1, 2, 3],
      reconcile: [2, 3],
    });
    expect(planVisit({ reconcile: false, stored: [], fetched: [42], lost: [] })).toEqual({
      visit: [42],
      reconcile: [42],
    });
  });
});
