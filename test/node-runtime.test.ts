// scripts/use-node.sh (the pinned Node that CI and the image smoke run on) and the places that must agree
// with its pins: .ci/run, the GitHub workflow, the Dockerfile's base image, the smoke's local base and
// package.json's engines.
// The registry is a local HTTP server that answers 404 and records what it was asked, so the tests show
// when the script reuses its cache and when it goes to the registry, without downloading anything.
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "..");
const script = join(root, "scripts/use-node.sh");
const read = (path: string) => readFile(join(root, path), "utf8");
/** The npm package the script takes Node from on this machine. */
const nodePackage = `node-linux-${process.arch}`;

async function pins(): Promise<{ node24: string; node22: string }> {
  const text = await read("scripts/use-node.sh");
  const pin = (name: string) => {
    const found = text.match(new RegExp(`^${name}=(\\d+\\.\\d+\\.\\d+)$`, "m"));
    if (!found?.[1]) throw new Error(`scripts/use-node.sh has no ${name}= pin`);
    return found[1];
  };
  return { node24: pin("node24"), node22: pin("node22") };
}

const asNumbers = (version: string) => version.split(".").map(Number);
function atLeast(version: string, floor: string): boolean {
  const [a, b] = [asNumbers(version), asNumbers(floor)];
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

describe("scripts/use-node.sh", () => {
  let registry: Server;
  let registryUrl = "";
  const asked: string[] = [];
  let cache = "";

  beforeAll(async () => {
    registry = createServer((req, res) => {
      asked.push(req.url ?? "");
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
    });
    await new Promise<void>((done) => registry.listen(0, "127.0.0.1", done));
    registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;
    cache = await mkdtemp(join(tmpdir(), "claim-hold-use-node-"));
  });
  afterAll(async () => {
    await new Promise((done) => registry.close(done));
    await rm(cache, { recursive: true, force: true });
  });

  /** A cached "node" that answers --version like the downloaded binary would. */
  async function cacheNode(major: number, version: string): Promise<string> {
    const bin = join(cache, `node${major}`, "node_modules", nodePackage, "bin");
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, "node"), `#!/bin/sh\necho v${version}\n`);
    await chmod(join(bin, "node"), 0o755);
    return bin;
  }

  const useNode = (major: string) =>
    run(script, [major], {
      env: {
        ...process.env,
        CLAIM_HOLD_NODE_CACHE: cache,
        npm_config_registry: registryUrl,
        npm_config_fetch_retries: "0",
        npm_config_cache: join(cache, "npm-cache"),
      },
    });

  it("prints the cached bin directory, and asks no registry, when the pinned version is there (twice)", async () => {
    const { node24 } = await pins();
    const bin = await cacheNode(24, node24);
    asked.length = 0;
    for (let i = 0; i < 2; i++) {
      const { stdout } = await useNode("24");
      expect(stdout).toBe(`${bin}\n`);
    }
    expect(asked).toEqual([]);
  });

  it("goes to the registry for the Node package at the pin when the cache holds another version, and fails loudly when it cannot", async () => {
    const { node22 } = await pins();
    await cacheNode(22, "22.0.0");
    asked.length = 0;
    const failure = await useNode("22").then(
      () => undefined,
      (error: { code?: number; stdout?: string; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stdout).toBe("");
    expect(failure?.stderr).toContain(`npm install ${nodePackage}@${node22} failed`);
    expect(asked.some((url) => url.startsWith(`/${nodePackage}`))).toBe(true);
  });

  it("refuses a major it has no pin for, with the usage and exit 2", async () => {
    const failure = await useNode("20").then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain("usage: scripts/use-node.sh 24|22");
  });
});

describe("the Node versions CI, the image and the package name", () => {
  it("agree with the pins of scripts/use-node.sh", async () => {
    const { node24, node22 } = await pins();
    const [ci, workflow, dockerfile, smoke, pkg] = await Promise.all([
      read(".ci/run"),
      read(".github/workflows/ci.yml"),
      read("Dockerfile"),
      read("scripts/docker-smoke.sh"),
      read("package.json"),
    ]);
    // CI: the suite on 24, the store contracts on 22.
    expect(ci).toContain("scripts/use-node.sh 24");
    expect(ci).toContain("scripts/use-node.sh 22");
    expect(workflow).toMatch(new RegExp(`^\\s+- node: ${node24.replaceAll(".", "\\.")}$`, "m"));
    expect(workflow).toMatch(new RegExp(`^\\s+- node: ${node22.replaceAll(".", "\\.")}$`, "m"));
    expect(workflow).not.toMatch(/node: 20|\[20/);
    // The image: the default base is the Node 24 CI runs; the smoke's local base is built from the same pin.
    expect(dockerfile).toMatch(new RegExp(`^ARG BASE=node:${node24.replaceAll(".", "\\.")}-`, "m"));
    expect(smoke).toContain("scripts/use-node.sh 24");
    // The package: the floor it declares is a 22 that the pinned 22 satisfies.
    const floor = (JSON.parse(pkg) as { engines: { node: string } }).engines.node.replace(/^>=/, "");
    expect(asNumbers(floor)[0]).toBe(22);
    expect(asNumbers(node22)[0]).toBe(22);
    expect(asNumbers(node24)[0]).toBe(24);
    expect(atLeast(node22, floor)).toBe(true);
  });
});
