// Which served Gitea instance a delivery comes from: the secret its signature verifies under, narrowed by the App's `?instance=N`, never chosen by the query alone.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { giteaInstallationRecordId } from "../../src/domain/forge.js";
import { hookSecretOf } from "../../src/providers/gitea/gitea-hook-secret.js";
import { deliveryInstance } from "../../src/wiring/gitea-webhook-instance.js";

const one = {
  name: "one",
  secret: "instance-one-secret-0001",
  hookSecrets: "instance" as const,
  installationId: giteaInstallationRecordId(1),
};
const two = {
  name: "two",
  secret: "instance-two-secret-0002",
  hookSecrets: "instance" as const,
  installationId: giteaInstallationRecordId(2),
};
const instances = [one, two];
const body = Buffer.from('{"action":"created"}');
const signed = (secret: string) => createHmac("sha256", secret).update(body).digest("hex");

function chosen(url: string, headers: Record<string, string>): string {
  const answer = deliveryInstance(instances, {
    header: (name) => headers[name],
    rawBody: body,
    url,
  });
  return answer.kind === "chosen" ? answer.instance.name : answer.kind;
}

describe("deliveryInstance", () => {
  it.each([
    [
      "signed with instance 1's secret",
      "/api/gitea/webhooks",
      { "x-gitea-signature": signed(one.secret) },
      "one",
    ],
    [
      "signed with instance 2's secret",
      "/api/gitea/webhooks",
      { "x-gitea-signature": signed(two.secret) },
      "two",
    ],
    [
      "Forgejo's header, instance 2",
      "/api/gitea/webhooks?fingerprint=ab",
      { "x-forgejo-signature": signed(two.secret) },
      "two",
    ],
    [
      "the App's own hook URL naming its instance",
      "/api/gitea/webhooks?instance=2&fingerprint=ab",
      { "x-gitea-signature": signed(two.secret) },
      "two",
    ],
    [
      "a query naming instance 1 on a delivery signed for 2",
      "/api/gitea/webhooks?instance=1",
      { "x-gitea-signature": signed(two.secret) },
      "invalid",
    ],
    [
      "a query naming an instance not served",
      "/api/gitea/webhooks?instance=3",
      { "x-gitea-signature": signed(two.secret) },
      "invalid",
    ],
    [
      "signed with neither secret",
      "/api/gitea/webhooks",
      { "x-gitea-signature": signed("another-secret-00000") },
      "invalid",
    ],
    [
      "a Gitea header for one instance and a Forgejo header for the other",
      "/api/gitea/webhooks",
      { "x-gitea-signature": signed(one.secret), "x-forgejo-signature": signed(two.secret) },
      "invalid",
    ],
    ["no signature", "/api/gitea/webhooks", {}, "missing"],
  ])("%s: %s", (_name, url, headers, expected) => {
    expect(chosen(url, headers)).toBe(expected);
  });
});

describe("deliveryInstance with the App's own hooks (a secret per repository)", () => {
  const managed = [
    { ...one, hookSecrets: "per-repository" as const },
    { ...two, hookSecrets: "per-repository" as const },
  ];
  const repoBody = Buffer.from('{"action":"created","repository":{"id":7}}');
  const sign = (secret: string) => createHmac("sha256", secret).update(repoBody).digest("hex");
  const pick = (signature: string, body: Buffer = repoBody) => {
    const answer = deliveryInstance(managed, {
      header: (name) => (name === "x-gitea-signature" ? signature : undefined),
      rawBody: body,
      url: "/api/gitea/webhooks",
    });
    return answer.kind === "chosen" ? answer.instance.name : answer.kind;
  };

  it.each([
    ["instance 2's secret for repository 7", () => pick(sign(hookSecretOf(two.secret, 7))), "two"],
    ["instance 1's secret for repository 7", () => pick(sign(hookSecretOf(one.secret, 7))), "one"],
    ["instance 2's own secret (a hand-made hook's)", () => pick(sign(two.secret)), "invalid"],
    ["repository 8's secret on a body naming 7", () => pick(sign(hookSecretOf(two.secret, 8))), "invalid"],
    ["a body naming no repository", () => pick(sign(two.secret), body), "unnamed"],
  ])("%s → %s", (_case, choose, expected) => {
    expect(choose()).toBe(expected);
  });

  it("a body naming no repository is `invalid` as soon as one instance's hooks are made by hand", () => {
    const mixed = [managed[0] as (typeof managed)[0], { ...two, hookSecrets: "instance" as const }];
    const answer = deliveryInstance(mixed, {
      header: (name) => (name === "x-gitea-signature" ? "00" : undefined),
      rawBody: body,
      url: "/api/gitea/webhooks",
    });
    expect(answer.kind).toBe("invalid");
  });
});
