// Gitea and Forgejo webhook signatures and delivery ids: a table of deliveries, signed as the forges sign them.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  giteaDeliveryId,
  type SignatureCheck,
  verifyGiteaSignature,
} from "../../src/providers/gitea/gitea-webhook-signature.js";

const secret = "gitea-webhook-secret";
const body = JSON.stringify({ action: "opened", number: 12, issue: { number: 12, title: "Fix the widget" } });
const sign = (text: string, key = secret) => createHmac("sha256", key).update(text).digest("hex");
const headers = (values: Record<string, string>) => (name: string) => values[name];

describe("verifyGiteaSignature", () => {
  const table: [string, Record<string, string>, string, SignatureCheck][] = [
    [
      "Gitea's header over the raw body",
      { "x-gitea-signature": sign(body) },
      body,
      { kind: "valid", header: "x-gitea-signature" },
    ],
    [
      "upper-case hex",
      { "x-gitea-signature": sign(body).toUpperCase() },
      body,
      { kind: "valid", header: "x-gitea-signature" },
    ],
    [
      "Forgejo's header",
      { "x-forgejo-signature": sign(body) },
      body,
      { kind: "valid", header: "x-forgejo-signature" },
    ],
    [
      "Forgejo's and Gitea's headers together",
      { "x-forgejo-signature": sign(body), "x-gitea-signature": sign(body) },
      body,
      { kind: "valid", header: "x-forgejo-signature" },
    ],
    ["a wrong secret", { "x-gitea-signature": sign(body, "other-secret") }, body, { kind: "invalid" }],
    ["a tampered body", { "x-gitea-signature": sign(body) }, body.replace("12", "13"), { kind: "invalid" }],
    [
      "a GitHub-style sha256= prefix",
      { "x-gitea-signature": `sha256=${sign(body)}` },
      body,
      { kind: "invalid" },
    ],
    ["a truncated signature", { "x-gitea-signature": sign(body).slice(0, 63) }, body, { kind: "invalid" }],
    [
      "a valid Forgejo header beside a forged Gitea one",
      { "x-forgejo-signature": sign(body), "x-gitea-signature": "0".repeat(64) },
      body,
      { kind: "invalid" },
    ],
    ["no signature header", { "x-gitea-event": "issues" }, body, { kind: "missing" }],
  ];
  it.each(table)("%s", (_name, values, rawBody, expected) => {
    expect(verifyGiteaSignature({ header: headers(values), rawBody, secret })).toEqual(expected);
  });

  it("signs bytes, not decoded text", () => {
    const bytes = new TextEncoder().encode(body);
    expect(
      verifyGiteaSignature({ header: headers({ "x-gitea-signature": sign(body) }), rawBody: bytes, secret }),
    ).toEqual({
      kind: "valid",
      header: "x-gitea-signature",
    });
  });
});

describe("giteaDeliveryId", () => {
  const uuid = "0f5a3c1e-7b1d-4c47-9a77-3a4f6a1d2b10";
  const table: [string, Record<string, string>, string | null][] = [
    ["Gitea's delivery header", { "x-gitea-delivery": uuid }, uuid],
    ["Forgejo's delivery header", { "x-forgejo-delivery": uuid }, uuid],
    ["none", {}, null],
    ["one that is not an id", { "x-gitea-delivery": "a b\nc" }, null],
    ["one too long", { "x-gitea-delivery": "a".repeat(129) }, null],
  ];
  it.each(table)("%s", (_name, values, expected) => {
    expect(giteaDeliveryId(headers(values))).toBe(expected);
  });
});
