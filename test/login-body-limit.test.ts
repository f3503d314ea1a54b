// The dashboard login form reads a body, so it keeps the 64 KiB limit of every body-reading route (docs/security.md#checks).
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import { type AppHarness, startApp, testAdminToken } from "./support/app-harness.js";

const oneMiB = 1024 * 1024;

let app: AppHarness;
beforeAll(async () => {
  app = await startApp({ stores: createMemoryStores(), adminToken: testAdminToken });
});
afterAll(async () => {
  await app?.close();
});

/**
 * POSTs a login form on a connection of its own, in 16 KiB writes: with its content-length, or
 * chunked without one. Resolves with the answer, whether or not the server read the whole body (a
 * refused body is not read to its end, so the server may close the connection while writes go on).
 */
function postLogin(body: string, options: { chunked: boolean }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(body);
    const headers: Record<string, string | number> = {
      "content-type": "application/x-www-form-urlencoded",
      ...(options.chunked ? {} : { "content-length": payload.length }),
    };
    let answered = false;
    const req = request(new URL("/login", app.url), { method: "POST", headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => {
        answered = true;
        resolve({ status: res.statusCode ?? 0, body: text });
        req.destroy();
      });
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    let sent = 0;
    const pump = () => {
      while (sent < payload.length && !req.destroyed) {
        const chunk = payload.subarray(sent, sent + 16 * 1024);
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once("drain", pump);
          return;
        }
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}

const oversized = `token=${"a".repeat(oneMiB)}`;

describe("POST /login body limit", () => {
  it("answers a 1 MiB login form sent with a content-length with 413 and a JSON error", async () => {
    const response = await postLogin(oversized, { chunked: false });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toEqual({
      error: "payload_too_large",
      message: "Bodies are limited to 64 KiB.",
    });
  });

  it("answers a 1 MiB login form sent chunked, without a content-length, with 413", async () => {
    const response = await postLogin(oversized, { chunked: true });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toEqual({
      error: "payload_too_large",
      message: "Bodies are limited to 64 KiB.",
    });
  });

  it.each([false, true])("still logs in with a form under the limit (chunked: %s)", async (chunked) => {
    const response = await postLogin(new URLSearchParams({ token: testAdminToken }).toString(), { chunked });
    expect(response.status).toBe(303);
  });

  it("reads a wrong token in a form just under the limit as a wrong token (401), not as too large", async () => {
    const response = await postLogin(`token=${"a".repeat(64 * 1024 - 6)}`, { chunked: true });
    expect(response.status).toBe(401);
  });
});
