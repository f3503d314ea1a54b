// The Action runs the CLI bundled into action/dist/ and committed: that bundle must be exactly what
// scripts/build-action.ts makes of today's source, carry every dependency inside, and run from a copy
// with no node_modules anywhere near it.
import { execFile, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAction, bundlePath } from "../scripts/build-action.js";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "..");
const committed = join(root, "action", "dist");
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };

let scratch: string;
let fresh: string;
/** The Action as a tag carries it, copied away from this repository's node_modules and source. */
let checkout: string;
let copiedBundle: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "claim-hold-action-bundle-"));
  fresh = join(scratch, "fresh");
  await buildAction(fresh);
  checkout = join(scratch, "checkout");
  cpSync(join(root, "action"), join(checkout, "action"), { recursive: true });
  copiedBundle = join(checkout, "action", "dist", bundlePath);
}, 60_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** Every file under `dir`, by its path relative to `dir`, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((path) => statSync(join(dir, path)).isFile())
    .sort();
}

describe("action/dist", () => {
  it("is byte for byte what npm run build:action makes of the source today", () => {
    const files = filesUnder(committed);
    expect(files).toEqual(filesUnder(fresh));
    expect(files).toContain(bundlePath);
    const stale = files.filter(
      (file) => !readFileSync(join(committed, file)).equals(readFileSync(join(fresh, file))),
    );
    // A change under src/agent/ (or a dependency's upgrade) without `npm run build:action` lands here.
    expect(stale, "action/dist/ is stale: run npm run build:action and commit it").toEqual([]);
  });

  it("builds the same bytes twice, naming no path of this machine", async () => {
    const again = join(scratch, "again");
    await buildAction(again);
    for (const file of filesUnder(fresh)) {
      expect(readFileSync(join(again, file)).equals(readFileSync(join(fresh, file))), file).toBe(true);
    }
    const bundle = readFileSync(join(fresh, bundlePath), "utf8");
    expect(bundle).not.toContain(root);
    expect(bundle).not.toContain(tmpdir());
    expect(bundle).not.toMatch(/sourceMappingURL/);
  });

  it("imports nothing but Node's built-ins: every dependency is inside", () => {
    const bundle = readFileSync(join(committed, bundlePath), "utf8");
    const specifiers = [
      ...bundle.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*"([^"]+)"/gm),
      ...bundle.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g),
      ...bundle.matchAll(/\b__require\(\s*"([^"]+)"\s*\)/g),
    ].map((match) => match[1] as string);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((specifier) => !specifier.startsWith("node:"))).toEqual([]);
  });

  it("runs from a copy of action/ with no node_modules and no source near it", async () => {
    expect(statSync(copiedBundle).mode & 0o111).not.toBe(0);
    expect(relative(checkout, copiedBundle)).toBe(join("action", "dist", "bin", "claim-hold.js"));
    const { stdout } = await run(process.execPath, [copiedBundle, "--help"], {
      cwd: checkout,
      env: { PATH: "" },
    });
    expect(stdout).toMatch(/^Usage: claim-hold /m);
    for (const command of ["claim", "verify", "release", "mcp"]) expect(stdout).toContain(`\n  ${command} `);
  });

  it("prints the package's version from the copy", async () => {
    const { stdout } = await run(process.execPath, [copiedBundle, "--version"], { cwd: checkout });
    expect(stdout).toContain(version);
  });

  it("serves MCP from the copy (the SDK and its schema validators are inside) with the package's version", async () => {
    const worktree = join(scratch, "worktree");
    execFileSync("git", ["init", "--quiet", worktree]);
    const client = new Client({ name: "action-bundle-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [copiedBundle, "mcp"],
        cwd: worktree,
        env: { PATH: process.env.PATH ?? "", HOME: scratch, CLAIM_HOLD_URL: "http://127.0.0.1:9" },
        stderr: "ignore",
      }),
    );
    try {
      expect(client.getServerVersion()?.version).toBe(version);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["claim_issue", "verify_hold"]));
    } finally {
      await client.close();
    }
  });

  it("leaves no npx (nor any package fetched at run time) in the Action's own code", () => {
    // The bundle is covered above (it imports nothing); these are the files the runner executes first.
    const entryPoints = readdirSync(join(root, "action")).filter((file) => file.endsWith(".js"));
    expect(entryPoints).toEqual(["main.js", "post.js", "runner.js"]);
    const mentions = ["action.yml", ...entryPoints.map((file) => join("action", file))].filter((file) =>
      /\bnpx\b|\bnpm (?:exec|install|i)\b/.test(readFileSync(join(root, file), "utf8")),
    );
    expect(mentions).toEqual([]);
  });
});
