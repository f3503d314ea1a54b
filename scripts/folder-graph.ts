// The folder graph of src/: which top-level folder (or top-level file) imports which, from dependency-cruiser's report.
//   npx tsx scripts/folder-graph.ts   prints the list docs/architecture.md#folder-graph shows
import { execFile } from "node:child_process";
import { promisify } from "node:util";

/** The part of dependency-cruiser's JSON report the graph is made from. */
export interface CruiseModules {
  modules: { source: string; dependencies: { resolved: string }[] }[];
}

/** A node of the graph: the first segment under src/ (`lease`, `providers`, `app.ts`); null outside src/. */
export function nodeOf(path: string): string | null {
  const match = /^src\/([^/]+)/.exec(path);
  return match ? (match[1] as string) : null;
}

/** Each node of src/ and the other nodes it imports, both sorted. */
export function folderGraph(report: CruiseModules): Map<string, string[]> {
  const edges = new Map<string, Set<string>>();
  for (const module of report.modules) {
    const from = nodeOf(module.source);
    if (from === null) continue;
    const targets = edges.get(from) ?? new Set<string>();
    edges.set(from, targets);
    for (const dependency of module.dependencies) {
      const to = nodeOf(dependency.resolved);
      if (to !== null && to !== from) targets.add(to);
    }
  }
  return new Map([...edges.keys()].sort().map((from) => [from, [...(edges.get(from) ?? [])].sort()]));
}

/** Pairs of nodes that import each other, as `a ↔ b` with a before b. */
export function twoWayPairs(graph: Map<string, string[]>): string[] {
  const pairs: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) if (from < to && graph.get(to)?.includes(from)) pairs.push(`${from} ↔ ${to}`);
  }
  return pairs;
}

/** The graph as the Markdown list in docs/architecture.md: a folder with a slash, a top-level file as is. */
export function renderFolderGraph(graph: Map<string, string[]>): string {
  const name = (node: string) => `\`${node.endsWith(".ts") || node.endsWith(".tsx") ? node : `${node}/`}\``;
  return [...graph]
    .map(
      ([from, targets]) =>
        `- ${name(from)} → ${targets.length === 0 ? "nothing" : targets.map(name).join(", ")}`,
    )
    .join("\n");
}

/** Runs dependency-cruiser over src/ with the repository's config and answers its report. */
export async function cruiseSrc(): Promise<CruiseModules> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      "node_modules/dependency-cruiser/bin/dependency-cruise.mjs",
      "src",
      "--config",
      ".dependency-cruiser.cjs",
      "--output-type",
      "json",
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
  return JSON.parse(stdout) as CruiseModules;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const graph = folderGraph(await cruiseSrc());
  console.log(renderFolderGraph(graph));
  const pairs = twoWayPairs(graph);
  if (pairs.length > 0) {
    console.error(`two-way pairs: ${pairs.join(", ")}`);
    process.exitCode = 1;
  }
}
