// Capability routing's decisions as tables: what an issue needs, what a caller lacks, and when a direct claim checks at all.
import { describe, expect, it } from "vitest";
import {
  directClaimMissing,
  missingCapabilities,
  neededCapabilities,
} from "../../src/domain/capabilities.js";
import { Capabilities, capabilitiesOfQuery, QueueQuery } from "../../src/http/api-schemas.js";
import { capabilityRefusal } from "../../src/lease/claim/capability-refusal.js";

describe("neededCapabilities", () => {
  it.each<[string, string[], string, string[]]>([
    ["no labels", [], "needs:", []],
    ["one capability label among others", ["bug", "needs:gpu", "p1"], "needs:", ["gpu"]],
    [
      "lower-cased and sorted, duplicates once",
      ["needs:Python", "Needs:GPU", "needs:gpu"],
      "needs:",
      ["gpu", "python"],
    ],
    ["the prefix alone needs nothing", ["needs:"], "needs:", []],
    ["a label merely containing the prefix needs nothing", ["agent:needs:gpu"], "needs:", []],
    ["agent:needs-human is no capability", ["agent:needs-human"], "needs:", []],
    ["a configured prefix, matched in any case", ["Requires/CUDA", "needs:gpu"], "requires/", ["cuda"]],
  ])("%s", (_name, labels, prefix, expected) => {
    expect(neededCapabilities(labels, prefix)).toEqual(expected);
  });
});

describe("missingCapabilities", () => {
  it.each<[string, string[], string[], string[]]>([
    ["needs nothing, declares nothing", ["bug"], [], []],
    ["needs gpu, declares nothing", ["needs:gpu"], [], ["gpu"]],
    ["needs gpu, declares gpu", ["needs:gpu"], ["gpu"], []],
    ["needs gpu, declares GPU (any case)", ["needs:gpu"], ["GPU"], []],
    ["needs gpu and python, declares python", ["needs:gpu", "needs:python"], ["python"], ["gpu"]],
    ["declares more than needed", ["needs:gpu"], ["gpu", "python", "rust"], []],
  ])("%s", (_name, labels, declared, expected) => {
    expect(missingCapabilities({ labels, prefix: "needs:", declared })).toEqual(expected);
  });
});

describe("a direct claim's capability check", () => {
  it.each<[string, string[], string[] | undefined, string[]]>([
    [
      "no capabilities sent: a deliberate claim goes ahead whatever the issue needs",
      ["needs:gpu"],
      undefined,
      [],
    ],
    ["capabilities sent, the issue needs one of them", ["needs:gpu"], ["gpu"], []],
    ["capabilities sent without the one needed: missing", ["needs:gpu"], ["python"], ["gpu"]],
    ["an empty list is a declaration too", ["needs:gpu"], [], ["gpu"]],
    ["an issue needing nothing is claimed by anyone", ["bug"], [], []],
  ])("%s", (_name, labels, declared, expected) => {
    expect(directClaimMissing({ labels, prefix: "needs:", declared })).toEqual(expected);
  });

  it("refuses 409 missing_capability naming what is missing, and nothing when nothing is", () => {
    const snapshot = { repo: "octo/widgets", issue: 7, labels: ["needs:gpu", "needs:python"] };
    expect(capabilityRefusal({ declared: ["python"], snapshot, prefix: "needs:" })).toEqual({
      code: "missing_capability",
      message:
        'octo/widgets#7 needs gpu, which this session did not declare; claim it without "capabilities" to take it anyway.',
      details: { missing: ["gpu"] },
    });
    expect(capabilityRefusal({ declared: undefined, snapshot, prefix: "needs:" })).toBeNull();
  });
});

describe("declared capabilities at the edge", () => {
  it.each<[string, unknown, string[] | null]>([
    ["lower-cased, duplicates once", ["GPU", "gpu", "Python"], ["gpu", "python"]],
    ["dots, plus and dashes", ["c++", "cuda-12.2", "node_24"], ["c++", "cuda-12.2", "node_24"]],
    ["empty name", [""], null],
    ["spaces", ["g pu"], null],
    ["leading punctuation", ["-gpu"], null],
    ["longer than 40", ["x".repeat(41)], null],
    ["more than 20", Array.from({ length: 21 }, (_, i) => `c${i}`), null],
    ["not strings", [1], null],
  ])("%s", (_name, input, expected) => {
    const parsed = Capabilities.safeParse(input);
    expect(parsed.success ? parsed.data : null).toEqual(expected);
  });

  it("the queue view's capabilities query is a comma-separated list", () => {
    expect(capabilitiesOfQuery(QueueQuery.parse({ capabilities: "GPU,python,gpu" }).capabilities)).toEqual([
      "gpu",
      "python",
    ]);
    expect(capabilitiesOfQuery(QueueQuery.parse({}).capabilities)).toEqual([]);
    expect(QueueQuery.safeParse({ capabilities: "gpu,,python" }).success).toBe(false);
    expect(
      QueueQuery.safeParse({ capabilities: Array.from({ length: 21 }, (_, i) => `c${i}`).join(",") }).success,
    ).toBe(false);
  });
});
