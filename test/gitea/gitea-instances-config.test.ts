// Several Gitea instances from the environment: GITEA_URL and its variables, then GITEA_URL_<N> and its numbered ones; half a configuration or a collision stops start-up, by name.
import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../../src/config/env.js";
import { deriveGiteaWebhookSecret, giteaConfigsOf } from "../../src/config/gitea-config.js";

const first = {
  GITEA_URL: "https://gitea.example.com",
  GITEA_TOKEN: "bot-token-0123456789",
  GITEA_WEBHOOK_SECRET: "webhook-secret-0123456789",
};
const second = {
  GITEA_URL_2: "https://forgejo.example.org:3000",
  GITEA_TOKEN_2: "bot-token-second-000",
  GITEA_WEBHOOK_SECRET_2: "webhook-secret-second-0000",
};
const configsOf = (raw: Record<string, string>) => giteaConfigsOf(parseEnv(raw), raw);

describe("giteaConfigsOf", () => {
  it("is empty when no Gitea variable is set, and GITEA_URL alone is the one instance as before", () => {
    expect(configsOf({})).toEqual([]);
    expect(configsOf(first)).toEqual([
      {
        url: "https://gitea.example.com",
        token: "bot-token-0123456789",
        webhookSecret: "webhook-secret-0123456789",
        webhookSecretDerived: false,
        manageWebhooks: true,
        installationId: 1,
        writeSpacingMs: 250,
      },
    ]);
  });

  it("takes GITEA_URL_<N> and its numbered variables as instance N, in number order", () => {
    const configs = configsOf({
      ...first,
      GITEA_URL_7: "https://seven.example.net/gitea",
      GITEA_TOKEN_7: "bot-token-seven-0000",
      GITEA_MANAGE_WEBHOOKS_7: "0",
      GITEA_WEBHOOK_SECRET_7: "webhook-secret-seven-000",
      GITEA_WRITE_SPACING_MS_7: "0",
      ...second,
    });
    expect(configs.map((config) => [config.installationId, config.url])).toEqual([
      [1, "https://gitea.example.com"],
      [2, "https://forgejo.example.org:3000"],
      [7, "https://seven.example.net/gitea"],
    ]);
    expect(configs[2]).toEqual({
      url: "https://seven.example.net/gitea",
      token: "bot-token-seven-0000",
      webhookSecret: "webhook-secret-seven-000",
      webhookSecretDerived: false,
      manageWebhooks: false,
      installationId: 7,
      writeSpacingMs: 0,
    });
    // Without a numbered secret, each instance's is derived from its own token.
    const derived = configsOf({
      ...first,
      GITEA_URL_2: second.GITEA_URL_2,
      GITEA_TOKEN_2: second.GITEA_TOKEN_2,
    });
    expect(derived[1]).toMatchObject({
      webhookSecret: deriveGiteaWebhookSecret(second.GITEA_TOKEN_2),
      webhookSecretDerived: true,
      installationId: 2,
    });
  });

  it("serves numbered instances without GITEA_URL, and moves GITEA_URL's number with GITEA_INSTALLATION_ID", () => {
    expect(configsOf(second).map((config) => config.installationId)).toEqual([2]);
    expect(
      configsOf({ ...first, GITEA_INSTALLATION_ID: "5", ...second }).map((config) => config.installationId),
    ).toEqual([5, 2]);
  });

  it.each([
    [
      "half an instance: its URL without a token",
      { ...first, GITEA_URL_2: second.GITEA_URL_2 },
      "invalid environment variable GITEA_TOKEN_2: required when serving a Gitea instance",
    ],
    [
      "half an instance: a token without a URL",
      { ...first, GITEA_TOKEN_2: second.GITEA_TOKEN_2 },
      "invalid environment variable GITEA_URL_2: required when serving a Gitea instance",
    ],
    [
      "half an instance: only a setting",
      { ...first, GITEA_WRITE_SPACING_MS_3: "10" },
      "invalid environment variable GITEA_URL_3: required when serving a Gitea instance",
    ],
    [
      "hand-made hooks without their secret",
      {
        ...first,
        GITEA_URL_2: second.GITEA_URL_2,
        GITEA_TOKEN_2: second.GITEA_TOKEN_2,
        GITEA_MANAGE_WEBHOOKS_2: "0",
      },
      "invalid environment variable GITEA_WEBHOOK_SECRET_2: required when GITEA_MANAGE_WEBHOOKS_2=0",
    ],
    [
      "a bad numbered value",
      { ...first, ...second, GITEA_URL_2: "ftp://x" },
      "invalid environment variable GITEA_URL_2:",
    ],
    [
      "a short numbered secret",
      { ...first, ...second, GITEA_WEBHOOK_SECRET_2: "short" },
      "invalid environment variable GITEA_WEBHOOK_SECRET_2: must be at least 16 characters",
    ],
    [
      "a bad numbered switch",
      { ...first, ...second, GITEA_MANAGE_WEBHOOKS_2: "yes" },
      "invalid environment variable GITEA_MANAGE_WEBHOOKS_2: must be 0 or 1",
    ],
    [
      "two instances with the same URL",
      { ...first, ...second, GITEA_URL_2: "https://GITEA.example.com/" },
      "invalid environment variable GITEA_URL_2: the same instance as GITEA_URL",
    ],
    [
      "two instances with the same webhook secret",
      { ...first, ...second, GITEA_WEBHOOK_SECRET_2: first.GITEA_WEBHOOK_SECRET },
      "invalid environment variable GITEA_WEBHOOK_SECRET_2: the webhook secret of GITEA_URL too",
    ],
    [
      "two instances with the same token, so the same derived secret",
      {
        GITEA_URL: first.GITEA_URL,
        GITEA_TOKEN: first.GITEA_TOKEN,
        GITEA_URL_2: second.GITEA_URL_2,
        GITEA_TOKEN_2: first.GITEA_TOKEN,
      },
      "invalid environment variable GITEA_TOKEN_2: the webhook secret of GITEA_URL too",
    ],
    [
      "GITEA_INSTALLATION_ID taking a numbered instance's number",
      { ...first, GITEA_INSTALLATION_ID: "2", ...second },
      "invalid environment variable GITEA_INSTALLATION_ID: instance number 2 is also GITEA_URL_2's",
    ],
    [
      "GITEA_URL_1: GITEA_URL is the first",
      { ...first, GITEA_URL_1: second.GITEA_URL_2, GITEA_TOKEN_1: second.GITEA_TOKEN_2 },
      "invalid environment variable GITEA_URL_1: numbered instances are numbered from 2 (GITEA_URL is the first)",
    ],
    [
      "a leading zero",
      { ...first, GITEA_URL_02: second.GITEA_URL_2 },
      "invalid environment variable GITEA_URL_02: an instance's number has no leading zero",
    ],
    [
      "a numbered installation id",
      { ...first, ...second, GITEA_INSTALLATION_ID_2: "4" },
      "invalid environment variable GITEA_INSTALLATION_ID_2: an instance's number is its suffix (GITEA_URL_2)",
    ],
  ])("stops start-up on %s, naming the variable and never a secret", (_name, raw, message) => {
    let caught: unknown;
    try {
      configsOf(raw as Record<string, string>);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(EnvError);
    expect((caught as EnvError).message.startsWith(message)).toBe(true);
    for (const secret of [
      first.GITEA_TOKEN,
      first.GITEA_WEBHOOK_SECRET,
      second.GITEA_TOKEN_2,
      second.GITEA_WEBHOOK_SECRET_2,
    ]) {
      expect((caught as EnvError).message).not.toContain(secret);
    }
  });
});
