// CLAIM_HOLD_NOTIFY is validated at start-up: a bad value names its place in the list and never quotes a URL.
import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../../src/config/env.js";

const secretPath = "T000/B000/very-secret-path";
const url = `https://hooks.example.com/${secretPath}`;

describe("CLAIM_HOLD_NOTIFY", () => {
  it("reads a list of sinks, format json unless told", () => {
    const env = parseEnv({
      CLAIM_HOLD_NOTIFY: JSON.stringify([
        { url, events: ["takeover", "reaped"] },
        { url: "http://127.0.0.1:9/x", format: "slack", events: ["needs-human"], secret: "s".repeat(16) },
      ]),
    });
    expect(env.CLAIM_HOLD_NOTIFY).toEqual([
      { url, format: "json", events: ["takeover", "reaped"] },
      { url: "http://127.0.0.1:9/x", format: "slack", events: ["needs-human"], secret: "s".repeat(16) },
    ]);
  });

  it("is absent when unset or blank", () => {
    expect(parseEnv({}).CLAIM_HOLD_NOTIFY).toBeUndefined();
    expect(parseEnv({ CLAIM_HOLD_NOTIFY: "  " }).CLAIM_HOLD_NOTIFY).toBeUndefined();
  });

  it.each([
    ["not JSON at all", url, "CLAIM_HOLD_NOTIFY: must be a JSON list of sinks"],
    [
      "an object, not a list",
      JSON.stringify({ url, events: ["takeover"] }),
      "CLAIM_HOLD_NOTIFY: Invalid input",
    ],
    [
      "a URL that is not http(s)",
      JSON.stringify([{ url: `ftp://x/${secretPath}`, events: ["stale"] }]),
      "CLAIM_HOLD_NOTIFY.0.url: must be an http(s) URL",
    ],
    [
      "a relative URL",
      JSON.stringify([{ url: secretPath, events: ["stale"] }]),
      "CLAIM_HOLD_NOTIFY.0.url: must be an http(s) URL",
    ],
    [
      "an unknown event",
      JSON.stringify([{ url, events: ["merged"] }]),
      "CLAIM_HOLD_NOTIFY.0.events.0: Invalid option",
    ],
    ["no events", JSON.stringify([{ url, events: [] }]), "CLAIM_HOLD_NOTIFY.0.events: Too small"],
    [
      "an unknown field",
      JSON.stringify([{ url, events: ["stale"], channel: "#ops" }]),
      'CLAIM_HOLD_NOTIFY.0: Unrecognized key: "channel"',
    ],
    [
      "a short secret",
      JSON.stringify([{ url, events: ["stale"], secret: "short" }]),
      "CLAIM_HOLD_NOTIFY.0.secret: must be at least 16 characters",
    ],
    [
      "an unknown format",
      JSON.stringify([{ url, format: "teams", events: ["stale"] }]),
      "CLAIM_HOLD_NOTIFY.0.format: Invalid option",
    ],
  ])("refuses %s in one line that names it and quotes no URL", (_case, value, expected) => {
    let message = "";
    try {
      parseEnv({ CLAIM_HOLD_NOTIFY: value });
    } catch (error) {
      expect(error).toBeInstanceOf(EnvError);
      message = (error as Error).message;
    }
    expect(message).toContain(`invalid environment variable ${expected}`);
    expect(message).not.toContain("\n");
    expect(message).not.toContain(secretPath);
    expect(message).not.toContain("hooks.example.com");
  });
});

describe("start-up with a bad CLAIM_HOLD_NOTIFY", () => {
  it("stops the process with one line that names the variable and quotes no URL", async () => {
    const { execFile } = await import("node:child_process");
    const result = await new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ["--import", "tsx", "src/main.ts"],
        {
          env: {
            PATH: process.env.PATH ?? "",
            CLAIM_HOLD_NOTIFY: JSON.stringify([{ url, events: ["takeover"], format: "teams" }]),
          },
          timeout: 30_000,
        },
        (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^claim-hold: invalid environment variable CLAIM_HOLD_NOTIFY\.0\.format: /),
    ]);
    expect(result.stderr + result.stdout).not.toContain(secretPath);
  });
});
