// The published package: `npm pack` of a copy of the repository, installed into an empty folder and globally
// (`npm install -g --prefix <tmp> <tarball>`, the way docs/reference/cli.md installs it before any registry
// release), runs `claim-hold --version` and `--help` from dist/, serves `import … from "claim-hold/client"`,
// and ships no tests or sources.
import { execFile, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../tools/local-stack/free-port.js";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "..");
const work = mkdtempSync(join(tmpdir(), "claim-hold-pack-"));
const source = join(work, "source");
const consumer = join(work, "consumer");
const globalPrefix = join(work, "global");
const npmEnv = {
  ...process.env,
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};

interface PackResult {
  filename: string;
  files: { path: string }[];
}

let packed: PackResult;
let installLog = "";
let globalInstallLog = "";

beforeAll(async () => {
  // The build (prepack) writes dist/ into the copy, never into the worktree.
  mkdirSync(source);
  for (const entry of [
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "app.yml",
    "README.md",
    "bin",
    "src",
  ]) {
    cpSync(join(root, entry), join(source, entry), { recursive: true });
  }
  symlinkSync(join(root, "node_modules"), join(source, "node_modules"), "dir");
  const pack = await run("npm", ["pack", "--json", "--pack-destination", work], {
    cwd: source,
    env: npmEnv,
    maxBuffer: 64 * 1024 * 1024,
  });
  packed = (JSON.parse(pack.stdout) as PackResult[])[0] as PackResult;

  mkdirSync(consumer);
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  // From npm's cache where it holds the packages, from the registry where it does not.
  const install = await run(
    "npm",
    ["install", "--prefer-offline", "--ignore-scripts", "--no-package-lock", join(work, packed.filename)],
    { cwd: consumer, env: npmEnv, maxBuffer: 64 * 1024 * 1024 },
  );
  installLog = `${install.stdout}${install.stderr}`;

  // A global install into a prefix of its own: `<prefix>/bin/claim-hold` is what lands on a user's PATH.
  const global = await run(
    "npm",
    [
      "install",
      "-g",
      "--prefix",
      globalPrefix,
      "--prefer-offline",
      "--ignore-scripts",
      join(work, packed.filename),
    ],
    { cwd: work, env: npmEnv, maxBuffer: 64 * 1024 * 1024 },
  );
  globalInstallLog = `${global.stdout}${global.stderr}`;
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the published package", () => {
  it("holds the bin, the compiled App and client, and nothing of the tests", () => {
    const paths = packed.files.map((file) => file.path);
    for (const needed of [
      "bin/claim-hold.js",
      "dist/main.js",
      "dist/agent/main.js",
      "dist/agent/client/index.js",
      "dist/agent/client/index.d.ts",
      "dist/providers/redis/lua/claim-14.lua",
      "package.json",
    ]) {
      expect(paths).toContain(needed);
    }
    expect(paths.filter((path) => !/^(bin|dist)\//.test(path)).sort()).toEqual([
      "README.md",
      "app.yml",
      "package.json",
    ]);
    expect(paths.filter((path) => /\.test\.|^test\/|^src\/|^tools\//.test(path))).toEqual([]);
  });

  it("installs without any dev dependency", () => {
    expect(installLog).toMatch(/added \d+ packages/);
    const installed = JSON.parse(
      readFileSync(join(consumer, "node_modules/claim-hold/package.json"), "utf8"),
    ) as { version: string };
    expect(installed.version).toBe(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version);
    // tsx is a dev dependency: the installed bin runs dist/ or nothing.
    expect(() => readFileSync(join(consumer, "node_modules/tsx/package.json"))).toThrow();
  });

  it("runs `claim-hold --help` and maps a missing CLAIM_HOLD_URL to the usage exit code", async () => {
    const bin = join(consumer, "node_modules/.bin/claim-hold");
    const help = await run(bin, ["--help"], { cwd: consumer });
    expect(help.stdout).toMatch(/^Usage: claim-hold \[options\] \[command\]/);
    expect(help.stdout).toMatch(/^\s+claim \[options\] <issue>\s/m);
    const env = { PATH: process.env.PATH ?? "", HOME: consumer };
    const missing = await run(bin, ["verify"], { cwd: consumer, env }).then(
      () => ({ code: 0 }),
      (error: { code: number }) => error,
    );
    expect(missing.code).toBe(2);
  });

  it("installs globally from the tarball: claim-hold on the prefix's PATH prints its version and help", async () => {
    expect(globalInstallLog).toMatch(/added \d+ packages/);
    const bin = join(globalPrefix, "bin", "claim-hold");
    const env = { PATH: `${join(globalPrefix, "bin")}:${process.env.PATH ?? ""}`, HOME: consumer };
    const version = await run("claim-hold", ["--version"], { cwd: work, env });
    expect(version.stdout).toBe(`${JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version}\n`);
    const help = await run(bin, ["--help"], { cwd: work, env });
    expect(help.stdout).toMatch(/^Usage: claim-hold \[options\] \[command\]/);
    const mcpHelp = await run(bin, ["mcp", "--help"], { cwd: work, env });
    expect(mcpHelp.stdout).toContain("list_free_issues");
    // The compiled CLI, with no loader: tsx is a dev dependency and is not installed.
    expect(() => readFileSync(join(globalPrefix, "lib", "node_modules", "tsx", "package.json"))).toThrow();
  });

  it("runs from the tarball with `npx --package=<tarball> claim-hold`, as docs/reference/cli.md shows", async () => {
    const result = await run(
      "npx",
      ["--yes", "--prefer-offline", `--package=${join(work, packed.filename)}`, "claim-hold", "--version"],
      { cwd: work, env: npmEnv, maxBuffer: 16 * 1024 * 1024 },
    );
    expect(result.stdout.trim().split("\n").at(-1)).toBe(
      JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version,
    );
  }, 180_000);

  it('serves `import … from "claim-hold/client"` with the client and the wire contract', async () => {
    const probe = [
      'import { createClaimHoldClient, isClaimHoldError, ErrorBodySchema } from "claim-hold/client";',
      'const client = createClaimHoldClient({ baseUrl: "http://127.0.0.1:9" });',
      "console.log(JSON.stringify([typeof client.claim, typeof isClaimHoldError, typeof ErrorBodySchema.parse]));",
    ].join("\n");
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", probe], { cwd: consumer });
    expect(JSON.parse(stdout)).toEqual(["function", "function", "function"]);
  });
});

describe("the install instructions", () => {
  /** Every Markdown file a reader meets: the README and docs/. */
  function docs(): string[] {
    const found = [join(root, "README.md")];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith(".md")) found.push(path);
      }
    };
    walk(join(root, "docs"));
    return found;
  }

  it("never tell anyone to run a bare `npx claim-hold` (the registry's claim-hold is not this package)", () => {
    const bare = /\bnpx\s+(?:(?:-y|--yes)\s+)*claim-hold\b/;
    const offenders = docs().flatMap((path) =>
      readFileSync(path, "utf8")
        .split("\n")
        .map((line, i) => [`${path.slice(root.length + 1)}:${i + 1}`, line] as const)
        .filter(
          ([, line]) => bare.test(line) || /"command":\s*"npx"/.test(line) || /^command = "npx"/.test(line),
        )
        .map(([where]) => where),
    );
    expect(docs().length).toBeGreaterThan(5);
    expect(offenders).toEqual([]);
    expect(readFileSync(join(root, "docs", "reference", "cli.md"), "utf8")).toContain(
      "npx --package=./claim-hold-0.1.0.tgz claim-hold",
    );
  });
});

describe("the lockfile's engines", () => {
  /** The packages `npm ci` (with `args`) warns EBADENGINE about, from a dry run of the committed lockfile. */
  async function badEngines(args: string[]): Promise<string[]> {
    const dir = mkdtempSync(join(tmpdir(), "claim-hold-engines-"));
    try {
      for (const file of ["package.json", "package-lock.json"]) cpSync(join(root, file), join(dir, file));
      const { stdout, stderr } = await run("npm", ["ci", "--dry-run", "--ignore-scripts", ...args], {
        cwd: dir,
        env: npmEnv,
      });
      return [...`${stdout}${stderr}`.matchAll(/EBADENGINE\s+package: '([^']+)'/g)].map(
        (m) => m[1] as string,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("installs the production tree (the image's npm ci --omit=dev) without an engine warning", async () => {
    expect(await badEngines(["--omit=dev"])).toEqual([]);
  }, 60_000);

  it("installs the dev tools too without an engine warning on a supported Node", async () => {
    expect(await badEngines([])).toEqual([]);
  }, 60_000);
});

describe("the production start", () => {
  it("is the compiled App, built by prestart; dev keeps the loader", () => {
    const { scripts } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(scripts.start).toBe("node dist/main.js");
    expect(scripts.prestart).toBe("npm run build");
    expect(scripts.dev).toMatch(/^tsx watch src\/main\.ts$/);
  });

  it("`node dist/main.js` serves /healthz and exits 0 on SIGTERM", async () => {
    const port = await freePort();
    const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
      type: "pkcs1",
      format: "pem",
    }) as string;
    const child = spawn(process.execPath, ["dist/main.js"], {
      cwd: source,
      env: {
        PATH: process.env.PATH,
        APP_ID: "4242",
        PRIVATE_KEY: privateKey,
        WEBHOOK_SECRET: "package-install-webhook-secret",
        HOST: "127.0.0.1",
        PORT: String(port),
        CLAIM_HOLD_DISABLE_JOBS: "janitor",
        LOG_LEVEL: "warn",
      },
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    let status = 0;
    for (let i = 0; i < 300 && status !== 200 && child.exitCode === null; i++) {
      status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 200) await new Promise((done) => setTimeout(done, 100));
    }
    child.kill("SIGTERM");
    expect(status).toBe(200);
    expect(await exited).toBe(0);
  }, 60_000);
});
