// The Gitea instance from the environment: all of it or none of it, validated once at start-up.
import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../../src/config/env.js";
import { deriveGiteaWebhookSecret, giteaConfigOf } from "../../src/config/gitea-config.js";

const full = {
  GITEA_URL: "https://gitea.example.com",
  GITEA_TOKEN: "bot-token-0123456789",
  GITEA_WEBHOOK_SECRET: "webhook-secret-0123456789",
};

describe("giteaConfigOf", () => {
  it("is null when no Gitea variable is set", () => {
    expect(giteaConfigOf(parseEnv({}))).toBeNull();
    expect(giteaConfigOf(parseEnv({ GITEA_URL: " " }))).toBeNull();
  });

  it("takes the three variables, with the installation record and write spacing defaulted", () => {
    expect(giteaConfigOf(parseEnv(full))).toEqual({
      url: "https://gitea.example.com",
      token: "bot-token-0123456789",
      webhookSecret: "webhook-secret-0123456789",
      webhookSecretDerived: false,
      manageWebhooks: true,
      installationId: 1,
      writeSpacingMs: 250,
    });
    expect(
      giteaConfigOf(parseEnv({ ...full, GITEA_INSTALLATION_ID: "9", GITEA_WRITE_SPACING_MS: "0" })),
    ).toMatchObject({ installationId: 9, writeSpacingMs: 0 });
  });

  it("takes two variables: without GITEA_WEBHOOK_SECRET the secret is derived from the token, the same in every replica", () => {
    const two = { GITEA_URL: full.GITEA_URL, GITEA_TOKEN: full.GITEA_TOKEN };
    const config = giteaConfigOf(parseEnv(two));
    expect(config).toMatchObject({
      manageWebhooks: true,
      webhookSecret: deriveGiteaWebhookSecret(full.GITEA_TOKEN),
    });
    expect(config?.webhookSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(config?.webhookSecret).not.toContain(full.GITEA_TOKEN);
    expect(giteaConfigOf(parseEnv(two))?.webhookSecret).toBe(config?.webhookSecret);
    // A rotated token: another secret (the next ensure pass re-writes the App's hooks).
    expect(deriveGiteaWebhookSecret("bot-token-rotated-000")).not.toBe(config?.webhookSecret);
  });

  it("GITEA_MANAGE_WEBHOOKS=0: hooks made by hand, with the secret the operator gives them", () => {
    expect(giteaConfigOf(parseEnv({ ...full, GITEA_MANAGE_WEBHOOKS: "0" }))).toMatchObject({
      manageWebhooks: false,
      webhookSecret: full.GITEA_WEBHOOK_SECRET,
    });
    expect(() =>
      giteaConfigOf(
        parseEnv({ GITEA_URL: full.GITEA_URL, GITEA_TOKEN: full.GITEA_TOKEN, GITEA_MANAGE_WEBHOOKS: "0" }),
      ),
    ).toThrow("invalid environment variable GITEA_WEBHOOK_SECRET: required when GITEA_MANAGE_WEBHOOKS=0");
    expect(() => parseEnv({ ...full, GITEA_MANAGE_WEBHOOKS: "no" })).toThrow(
      "invalid environment variable GITEA_MANAGE_WEBHOOKS: must be 0 or 1",
    );
  });

  it.each([
    [{ GITEA_URL: full.GITEA_URL }, "GITEA_TOKEN"],
    [{ GITEA_TOKEN: full.GITEA_TOKEN, GITEA_WEBHOOK_SECRET: full.GITEA_WEBHOOK_SECRET }, "GITEA_URL"],
    [{ GITEA_WEBHOOK_SECRET: full.GITEA_WEBHOOK_SECRET }, "GITEA_URL"],
    [{ GITEA_MANAGE_WEBHOOKS: "1" }, "GITEA_URL"],
    [{ GITEA_INSTALLATION_ID: "3" }, "GITEA_URL"],
  ])("stops start-up on half a configuration %#, naming %s", (env, missing) => {
    expect(() => giteaConfigOf(parseEnv(env))).toThrow(EnvError);
    expect(() => giteaConfigOf(parseEnv(env))).toThrow(`invalid environment variable ${missing}:`);
  });

  it("refuses a GITEA_URL with a user name or password in it, naming the variable only", () => {
    for (const url of ["https://bot:hunter2-pass@gitea.example.com", "https://bot@gitea.example.com"]) {
      let message = "";
      try {
        parseEnv({ ...full, GITEA_URL: url });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toBe(
        "invalid environment variable GITEA_URL: must not carry a user name or password (the token is GITEA_TOKEN)",
      );
    }
  });

  it("rejects a bad value by name, never quoting a secret", () => {
    expect(() => parseEnv({ ...full, GITEA_URL: "ftp://x" })).toThrow("GITEA_URL");
    expect(() => parseEnv({ ...full, GITEA_WEBHOOK_SECRET: "short" })).toThrow(
      "invalid environment variable GITEA_WEBHOOK_SECRET: must be at least 16 characters",
    );
    expect(() => parseEnv({ ...full, GITEA_TOKEN: "has space in it" })).toThrow(
      /^invalid environment variable GITEA_TOKEN: must be an access token$/,
    );
  });
});
