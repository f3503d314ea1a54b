// The log lines: the format chosen from LOG_FORMAT and the terminal, one `name` a line, children's `component`.
import { Writable } from "node:stream";
import { Probot } from "probot";
import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../src/config/env.js";
import { createLogger, type LogFormat, logFormatOf, splitComponent } from "../src/logger.js";
import { testCredentials } from "./support/app-harness.js";

/** A pino destination that keeps the raw text it is given, line by line. */
function rawLines(): { destination: Writable; lines: () => string[] } {
  let text = "";
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      text += String(chunk);
      callback();
    },
  });
  return { destination, lines: () => text.split("\n").filter((line) => line !== "") };
}

/** How many times a line's JSON text holds the key (JSON.parse would keep only the last of duplicates). */
function keyCount(line: string, key: string): number {
  return line.split(`"${key}":`).length - 1;
}

describe("logFormatOf", () => {
  const cases: [LogFormat | undefined, boolean, LogFormat][] = [
    [undefined, true, "pretty"],
    [undefined, false, "json"],
    ["json", true, "json"],
    ["json", false, "json"],
    ["pretty", true, "pretty"],
    ["pretty", false, "pretty"],
  ];
  it.each(cases)("LOG_FORMAT=%s, stdout a terminal: %s → %s", (setting, terminal, format) => {
    expect(logFormatOf(setting, terminal)).toBe(format);
  });
});

describe("splitComponent", () => {
  const cases: [Record<string, unknown>, string | undefined, string | undefined, Record<string, unknown>][] =
    [
      [{ name: "janitor" }, undefined, "janitor", {}],
      [{ component: "notify" }, undefined, "notify", {}],
      [{ name: "octokit", id: 7 }, "probot", "probot/octokit", { id: 7 }],
      [{ component: "a", name: "b" }, undefined, "a", {}],
      [{ deliveryId: "d1" }, "probot", "probot", { deliveryId: "d1" }],
      [{ deliveryId: "d1" }, undefined, undefined, { deliveryId: "d1" }],
      [{ name: "" }, "http", "http", {}],
    ];
  it.each(cases)("%j under %s → component %s", (bindings, parent, component, rest) => {
    expect(splitComponent(bindings, parent)).toEqual({ component, rest });
  });
});

describe("LOG_FORMAT in the environment", () => {
  // Typed as text: Probot's typings narrow `process.env.LOG_FORMAT`, a shell does not.
  const withFormat = (value: string) => parseEnv({ LOG_FORMAT: value } as unknown as NodeJS.ProcessEnv);
  it("takes json and pretty, leaves it unset when empty, and refuses anything else by name", () => {
    expect(withFormat("json").LOG_FORMAT).toBe("json");
    expect(withFormat("pretty").LOG_FORMAT).toBe("pretty");
    expect(withFormat(" ").LOG_FORMAT).toBeUndefined();
    expect(() => withFormat("yaml")).toThrow(EnvError);
    expect(() => withFormat("yaml")).toThrow(/LOG_FORMAT/);
  });
});

describe("createLogger", () => {
  it("writes one name and the component on a child's line, nested children included", () => {
    const { destination, lines } = rawLines();
    const log = createLogger({ destination });
    log.child({ component: "janitor" }).info("swept");
    log.child({ name: "probot" }).child({ name: "octokit", id: 3 }).child({ deliveryId: "d1" }).warn("deep");
    const [swept, deep] = lines();
    expect(keyCount(swept!, "name")).toBe(1);
    expect(keyCount(swept!, "component")).toBe(1);
    expect(JSON.parse(swept!)).toMatchObject({ name: "claim-hold", component: "janitor", msg: "swept" });
    expect(keyCount(deep!, "name")).toBe(1);
    expect(keyCount(deep!, "component")).toBe(1);
    expect(JSON.parse(deep!)).toMatchObject({
      name: "claim-hold",
      component: "probot/octokit",
      id: 3,
      deliveryId: "d1",
    });
  });

  it("gives Probot's own children (its `child({ name })`) one name and a component", async () => {
    const { destination, lines } = rawLines();
    const log = createLogger({ destination });
    const { appId, privateKey } = testCredentials();
    const probot = await new Probot({ appId, privateKey, log }).ready();
    probot.log.info("probot speaking");
    const line = lines().find((l) => l.includes("probot speaking"));
    expect(line).toBeDefined();
    expect(keyCount(line!, "name")).toBe(1);
    expect(JSON.parse(line!)).toMatchObject({ name: "claim-hold", component: "probot" });
  });

  it("pretty-prints through pino-pretty with the component in front, secrets still redacted", () => {
    const { destination, lines } = rawLines();
    const log = createLogger({ destination, format: "pretty" });
    log.child({ component: "notify" }).info({ token: "ghp_secret0000000000" }, "sent");
    const [line] = lines();
    expect(() => JSON.parse(line!)).toThrow();
    expect(line).toMatch(/INFO \(claim-hold\): \[notify\] sent/);
    expect(lines().join("\n")).not.toContain("ghp_secret");
    expect(lines().join("\n")).toContain("[redacted]");
  });
});
