// The folder graph of src/ points one way: no two top-level folders import each other, and docs/architecture.md shows the graph as it is.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { cruiseSrc, folderGraph, renderFolderGraph, twoWayPairs } from "../../scripts/folder-graph.js";

describe("folder graph", () => {
  let graph = new Map<string, string[]>();
  beforeAll(async () => {
    graph = folderGraph(await cruiseSrc());
  });

  it("has no two-way pair of folders in src/", () => {
    expect(graph.size).toBeGreaterThan(10);
    expect(twoWayPairs(graph)).toEqual([]);
  });

  it("finds a two-way pair and names it", () => {
    const cyclic = folderGraph({
      modules: [
        { source: "src/lease/a.ts", dependencies: [{ resolved: "src/queue/b.ts" }] },
        { source: "src/queue/b.ts", dependencies: [{ resolved: "src/lease/c.ts" }] },
      ],
    });
    expect(twoWayPairs(cyclic)).toEqual(["lease ↔ queue"]);
  });

  it("is the one docs/architecture.md shows (regenerate with `npx tsx scripts/folder-graph.ts`)", () => {
    const doc = readFileSync("docs/architecture.md", "utf8");
    const shown = /<!-- folder-graph:start -->\n([\s\S]*?)\n<!-- folder-graph:end -->/.exec(doc)?.[1];
    expect(shown).toBe(renderFolderGraph(graph));
  });
});
