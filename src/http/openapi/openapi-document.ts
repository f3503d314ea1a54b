// The OpenAPI 3.1 document of the HTTP API, built from the route table's zod schemas; rendered with sorted keys so it is byte-stable.
import { readFileSync } from "node:fs";
import { z } from "zod";
import {
  createDocument,
  createSchema,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from "zod-openapi";
import {
  ActorSchema,
  ClaimResponseSchema,
  ClaimRowSchema,
  LeaseSchema,
  OverlapSchema,
  ResumeSchema,
  TakeoverPendingSchema,
  TransitionSchema,
} from "../../contract/api-responses.js";
import { allErrorCodes, type ErrorCode, errorBodySchemaOf, errorCodes } from "../../contract/refusals.js";
import { forges } from "../../domain/forge.js";
import { ErrorBody } from "./documented-responses.js";
import { type ErrorStatus, errorsByStatus, type RouteAuth, type RouteDoc } from "./route-doc.js";
import { routeDocs } from "./route-docs.js";

/** A status code as zod-openapi's responses object is keyed. */
type StatusKey = `${1 | 2 | 3 | 4 | 5}${string}`;

const errorMeaning: Record<ErrorStatus, string> = {
  400: "The body is not valid JSON.",
  401: "Missing or refused credential.",
  403: "The account lacks the permission the route needs on the repository.",
  404: "No such thing (or the App is not installed there).",
  409: "Refused by the current claim state.",
  410: "The lease has ended; claim again.",
  413: "Bodies are limited to 64 KiB.",
  415: "Send the body as application/json.",
  422: "A field is invalid or unknown; `field` names it.",
  429: "Too many failed authentications (or reads) from this caller; see `Retry-After`.",
  500: "Internal error; the message carries the request id.",
  502: "GitHub did not answer as expected; retry is safe.",
  503: "The claim store is unavailable (or the claim state is unknown); retry shortly.",
};

const security: Record<RouteAuth, oas31.SecurityRequirementObject[]> = {
  github: [{ githubToken: [] }],
  lease: [{ leaseToken: [] }],
  admin: [{ adminToken: [] }],
  // Optional: `{}` is "no credential", asked for only when METRICS_TOKEN is set.
  metrics: [{}, { metricsToken: [] }],
  none: [],
};

const securitySchemes: Record<string, oas31.SecuritySchemeObject> = {
  githubToken: {
    type: "http",
    scheme: "bearer",
    description:
      "A GitHub token of the agent's account (PAT, fine-grained token or GitHub App user token), resolved with `GET /user`; with `X-Claim-Hold-Forge: gitea`, an access token of the agent's account on the App's Gitea or Forgejo instance.",
  },
  leaseToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "clh_…",
    description: "The lease token returned once by the claim (`lease.token`).",
  },
  adminToken: { type: "http", scheme: "bearer", description: "`CLAIM_HOLD_ADMIN_TOKEN`." },
  metricsToken: { type: "http", scheme: "bearer", description: "`METRICS_TOKEN`, when set." },
};

/** Where the API is: one variable, so a generated client is pointed at its own deployment. */
const servers: oas31.ServerObject[] = [
  {
    url: "{baseUrl}",
    description: "A claim-hold App: the URL the CLI reads from `CLAIM_HOLD_URL`.",
    variables: {
      baseUrl: {
        default: "http://localhost:3000",
        description: "The App's origin, without a trailing slash.",
      },
    },
  },
];

const tags: oas31.TagObject[] = [
  { name: "claims", description: "Claim an issue (GitHub token, `write`)." },
  { name: "leases", description: "Calls with the lease token." },
  { name: "reads", description: "Inventory, subject and queue reads (GitHub token, `read`)." },
  { name: "operator", description: "Operator calls (admin token)." },
  { name: "ops", description: "Probes, metrics and this document." },
];

/** Answer parts several answers share: referenced by these names instead of repeated. */
const sharedAnswerParts: Record<string, z.ZodType> = {
  Actor: ActorSchema,
  ClaimResponse: ClaimResponseSchema,
  ClaimRow: ClaimRowSchema,
  Error: ErrorBody,
  Lease: LeaseSchema,
  Overlap: OverlapSchema,
  Resume: ResumeSchema,
  TakeoverPending: TakeoverPendingSchema,
  Transition: TransitionSchema,
};

/**
 * A response body as JSON Schema of what goes over the wire: the client's lenient schemas transform
 * what they read (null → []), so their input side is the body the server sends. The shared parts it
 * uses are added to `components`.
 */
function wireSchema(schema: z.ZodType, components: Record<string, oas31.SchemaObject>): oas31.SchemaObject {
  const rendered = createSchema(schema, { io: "input", schemaComponents: sharedAnswerParts });
  Object.assign(components, rendered.components);
  return rendered.schema as oas31.SchemaObject;
}

function responsesOf(
  route: RouteDoc,
  components: Record<string, oas31.SchemaObject>,
): ZodOpenApiResponsesObject {
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, answer] of Object.entries(route.answers)) {
    if (!answer) continue;
    const mediaType = answer.textMediaType ?? "application/json";
    responses[status as StatusKey] = {
      description: answer.description,
      content: { [mediaType]: { schema: wireSchema(answer.schema, components), example: answer.example } },
    };
  }
  for (const [status, codes] of errorsByStatus(route.errors)) {
    responses[String(status) as StatusKey] = {
      description: `${errorMeaning[status]} Codes: ${codes.map((code) => `\`${code}\``).join(", ")}.`,
      content: {
        "application/json": {
          schema: errorSchemaOf(codes),
          examples: Object.fromEntries(
            codes.map((code) => [code, { $ref: `#/components/examples/${errorComponentName(code)}` }]),
          ),
        },
      },
      ...(status === 429
        ? {
            headers: {
              "Retry-After": { description: "Seconds to wait.", schema: { type: "integer", minimum: 0 } },
            },
          }
        : {}),
    };
  }
  return responses;
}

/** `held` → `HeldError`: the component name of a code's body schema and example. */
export function errorComponentName(code: ErrorCode): string {
  return `${code.replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase())}Error`;
}

/** One status's body: the code's own schema, or a `oneOf` of them told apart by `error`. */
function errorSchemaOf(codes: readonly ErrorCode[]): oas31.SchemaObject | oas31.ReferenceObject {
  const refs = codes.map((code) => `#/components/schemas/${errorComponentName(code)}`);
  if (refs.length === 1) return { $ref: refs[0]! };
  return {
    oneOf: refs.map(($ref) => ({ $ref })),
    discriminator: {
      propertyName: "error",
      mapping: Object.fromEntries(codes.map((code, i) => [code, refs[i]!])),
    },
  };
}

/** Every code's body schema and example, from the refusal table. */
function errorComponents(
  components: Record<string, oas31.SchemaObject>,
): Record<string, oas31.ExampleObject> {
  const examples: Record<string, oas31.ExampleObject> = {};
  for (const code of allErrorCodes) {
    const row = errorCodes[code];
    components[errorComponentName(code)] = {
      ...wireSchema(errorBodySchemaOf(code), components),
      description: `\`${row.status} ${code}\`: ${row.summary}`,
    };
    examples[errorComponentName(code)] = { summary: row.summary, value: row.example };
  }
  return examples;
}

/** The routes taking a forge token name its forge when the App serves more than one (docs/reference/http-api.md#forges-x-claim-hold-forge). */
const ForgeHeader = z.object({
  "x-claim-hold-forge": z
    .union([z.enum(forges), z.string().regex(/^gitea:\S+$/)])
    .optional()
    .meta({
      description:
        "The forge of the bearer token, when the App serves more than one; absent: GitHub. With several Gitea instances, `gitea:<host>` (the instance URL's host[:port]) names one, and a bare `gitea` is refused. Anything else is `422 invalid_request`.",
    }),
});

function operationOf(
  route: RouteDoc,
  components: Record<string, oas31.SchemaObject>,
): ZodOpenApiOperationObject {
  const requestParams = {
    ...(route.pathParams ? { path: route.pathParams } : {}),
    ...(route.query ? { query: route.query } : {}),
    ...(route.auth === "github" ? { header: ForgeHeader } : {}),
  };
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    security: security[route.auth],
    ...(Object.keys(requestParams).length > 0 ? { requestParams } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: !route.body.optional,
            content: { "application/json": { schema: route.body.schema, example: route.body.example } },
          },
        }
      : {}),
    responses: responsesOf(route, components),
  };
}

function packageVersion(): string {
  // Two levels under src/ (or dist/): the same relative path from either.
  const url = new URL("../../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}

export function buildOpenApiDocument(routes: readonly RouteDoc[] = routeDocs): oas31.OpenAPIObject {
  const paths: ZodOpenApiPathsObject = {};
  const answerParts: Record<string, oas31.SchemaObject> = {};
  // Request bodies are components named after their operation: `claim` parses a `ClaimRequest`.
  const requestBodies: Record<string, z.ZodType> = {};
  for (const route of routes) {
    const item = paths[route.path] ?? {};
    if (item[route.method]) throw new Error(`two rows for ${route.method.toUpperCase()} ${route.path}`);
    item[route.method] = operationOf(route, answerParts);
    paths[route.path] = item;
    if (route.body)
      requestBodies[`${route.operationId[0]!.toUpperCase()}${route.operationId.slice(1)}Request`] =
        route.body.schema;
  }
  wireSchema(ErrorBody, answerParts);
  const errorExamples = errorComponents(answerParts);
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "claim-hold HTTP API",
      version: packageVersion(),
      description:
        "Leases on GitHub issues for agent sessions and humans. JSON in, JSON out; every error is `{ error, message, ...details }`, one schema per `error` code; unknown body fields are refused with `422 invalid_request` naming the field. What may change within `/api/v1`: docs/reference/http-api.md#compatibility.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers,
    tags,
    paths,
    components: { securitySchemes, schemas: { ...answerParts, ...requestBodies }, examples: errorExamples },
  });
}

/** Object keys sorted at every depth (arrays keep their order): the same document renders the same bytes. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== "object") return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    sorted[key] = sortedKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/** The document as committed in `docs/openapi.json` and served at `GET /api/v1/openapi.json`. */
export function renderOpenApiJson(): string {
  return `${JSON.stringify(sortedKeys(buildOpenApiDocument()), null, 2)}\n`;
}
