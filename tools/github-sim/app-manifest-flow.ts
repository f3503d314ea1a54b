// Registering an App from a manifest, as GitHub does it: the browser posts the manifest to
// `/settings/apps/new`, GitHub sends it back to the manifest's `redirect_url` with a one-time code, and
// `POST /app-manifests/{code}/conversions` turns the code into the App's id, key and webhook secret.
// The simulator has one App: a conversion gives it a new key, webhook URL, secret and events.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import type { RestAnswer } from "./rest-routes.js";

export interface ManifestRegistration {
  name: string;
  /** Where webhooks go, or undefined when the manifest's hook is inactive. */
  webhookUrl: string | undefined;
  webhookSecret: string;
  /** The new private key (PKCS#1 PEM, as GitHub sends it). */
  pem: string;
  events: string[] | undefined;
}

export interface AppManifestFlowDeps {
  /** The App as `GET /app` renders it. */
  renderApp(): Record<string, unknown>;
  /** Makes the registration the simulator's App (key, webhook URL and secret, events). */
  register(registration: ManifestRegistration): void;
}

const newAppForm = /^\/(?:organizations\/[^/]+\/)?settings\/apps\/new$/;
const conversion = /^(?:\/api\/v3)?\/app-manifests\/([^/]+)\/conversions$/;

export class AppManifestFlow {
  readonly #pending = new Map<string, Record<string, unknown>>();

  constructor(private readonly deps: AppManifestFlowDeps) {}

  /** The answer for a manifest-flow request, or undefined for any other request. */
  handle(method: string, path: string, query: URLSearchParams, text: string): RestAnswer | undefined {
    if (method === "POST" && newAppForm.test(path)) return this.#begin(text, query.get("state"));
    const code = method === "POST" ? conversion.exec(path)?.[1] : undefined;
    return code === undefined ? undefined : this.#convert(code);
  }

  /** GitHub shows the manifest and the user confirms; here it is confirmed at once. */
  #begin(text: string, state: string | null): RestAnswer {
    const form = new URLSearchParams(text);
    let manifest: Record<string, unknown>;
    try {
      manifest = JSON.parse(form.get("manifest") ?? "");
    } catch {
      return { status: 400, text: "manifest missing or not JSON" };
    }
    const redirect = typeof manifest.redirect_url === "string" ? manifest.redirect_url : undefined;
    const hook = manifest.hook_attributes as { url?: unknown } | undefined;
    if (!redirect || typeof manifest.url !== "string" || typeof hook?.url !== "string") {
      return { status: 422, text: "manifest needs url, hook_attributes.url and redirect_url" };
    }
    const code = randomBytes(10).toString("hex");
    this.#pending.set(code, manifest);
    const location = new URL(redirect);
    location.searchParams.set("code", code);
    if (state) location.searchParams.set("state", state);
    return { status: 302, headers: { location: location.href }, text: "" };
  }

  #convert(code: string): RestAnswer {
    const manifest = this.#pending.get(code);
    if (!manifest) {
      return {
        status: 404,
        body: { message: "Not Found", documentation_url: "https://docs.github.com/rest" },
      };
    }
    // A code is good once, and for one hour on GitHub; once is what the App relies on.
    this.#pending.delete(code);
    const hook = manifest.hook_attributes as { url: string; active?: boolean };
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const registration: ManifestRegistration = {
      name: typeof manifest.name === "string" ? manifest.name : "claim-hold",
      webhookUrl: hook.active === false ? undefined : hook.url,
      webhookSecret: randomBytes(20).toString("hex"),
      pem: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
      events: Array.isArray(manifest.default_events) ? (manifest.default_events as string[]) : undefined,
    };
    this.deps.register(registration);
    return {
      status: 201,
      body: {
        ...this.deps.renderApp(),
        name: registration.name,
        description: typeof manifest.description === "string" ? manifest.description : "",
        external_url: manifest.url,
        permissions: manifest.default_permissions ?? {},
        events: registration.events ?? [],
        client_id: `Iv1.${randomBytes(8).toString("hex")}`,
        client_secret: randomBytes(20).toString("hex"),
        webhook_secret: registration.webhookSecret,
        pem: registration.pem,
      },
    };
  }
}
