// Test helpers around the GitHub simulator: an App JWT, installation tokens, and a webhook receiver.
import { createSign } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { graphql } from "@octokit/graphql";
import type { GitHubSimulator } from "../../tools/github-sim/index.js";

/** An RS256 App JWT as Octokit's auth-app makes it (iat 30 s back, 10 min life). */
export function signAppJwt(
  privateKey: string,
  appId: number,
  nowSeconds = Math.floor(Date.now() / 1000),
): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${encode({ alg: "RS256", typ: "JWT" })}.${encode({ iat: nowSeconds - 30, exp: nowSeconds + 540, iss: appId })}`;
  const signature = createSign("RSA-SHA256").update(unsigned).sign(privateKey, "base64url");
  return `${unsigned}.${signature}`;
}

/** POST /app/installations/{id}/access_tokens with the App's JWT: the token. */
export async function createInstallationToken(
  sim: GitHubSimulator,
  privateKey: string,
  installationId: number,
  appId = 1,
): Promise<string> {
  const response = await fetch(`${sim.baseUrl}/app/installations/${installationId}/access_tokens`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${signAppJwt(privateKey, appId)}`,
      accept: "application/vnd.github+json",
    },
  });
  if (response.status !== 201) throw new Error(`access_tokens answered ${response.status}`);
  return ((await response.json()) as { token: string }).token;
}

/** An @octokit/graphql client pointed at the simulator through its GHE-style REST base URL. */
export function simGraphql(sim: GitHubSimulator, token: string) {
  return graphql.defaults({ baseUrl: sim.baseUrl, headers: { authorization: `token ${token}` } });
}

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A bare HTTP server that records every POST and answers `status` (default 200). */
export async function startWebhookReceiver(status = 200) {
  const received: ReceivedWebhook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
