// Runs a GraphQL request against GitHub's published schema, answering (and refusing) the way GitHub does.
import { schema as githubSchemaSource } from "@octokit/graphql-schema";
import {
  buildSchema,
  type DocumentNode,
  execute,
  type GraphQLError,
  GraphQLError as GraphQLErrorClass,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  getNamedType,
  Kind,
  type OperationDefinitionNode,
  parse,
  TypeInfo,
  type ValueNode,
  validate,
  visit,
  visitWithTypeInfo,
} from "graphql";
import type { FieldFault } from "../fault-rules.js";
import { mutations } from "./graphql-mutations.js";
import {
  actorView,
  type GraphqlContext,
  githubError,
  nodeView,
  repoView,
  visibleRepo,
} from "./graphql-views.js";

let builtSchema: GraphQLSchema | undefined;

/** GitHub's schema, built once; the published IDL repeats two fields, which strict SDL validation refuses. */
export function githubSchema(): GraphQLSchema {
  builtSchema ??= buildSchema(githubSchemaSource.idl, { assumeValidSDL: true });
  return builtSchema;
}

export interface GraphqlBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/** What the request log records about a GraphQL request, read without executing it. */
export interface GraphqlOperationInfo {
  document?: DocumentNode;
  operation?: OperationDefinitionNode;
  operationName?: string;
  operationType?: string;
  mutationFields?: string[];
  parseError?: GraphQLError;
}

export function inspectGraphql(body: GraphqlBody): GraphqlOperationInfo {
  if (typeof body.query !== "string") return {};
  let document: DocumentNode;
  try {
    document = parse(body.query);
  } catch (error) {
    return { parseError: error as GraphQLError };
  }
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const operation =
    typeof body.operationName === "string"
      ? operations.find((o) => o.name?.value === body.operationName)
      : operations.length === 1
        ? operations[0]
        : undefined;
  if (!operation) return { document };
  return {
    document,
    operation,
    ...(operation.name ? { operationName: operation.name.value } : {}),
    operationType: operation.operation,
    ...(operation.operation === "mutation"
      ? {
          mutationFields: operation.selectionSet.selections.flatMap((s) =>
            s.kind === Kind.FIELD ? [s.name.value] : [],
          ),
        }
      : {}),
  };
}

interface GithubErrorJson {
  message: string;
  type?: string;
  path?: readonly (string | number)[];
  locations?: readonly { line: number; column: number }[];
  extensions?: Record<string, unknown>;
}

/** GitHub (graphql-ruby) puts `type` beside the message and words a missing field its own way. */
function formatError(error: GraphQLError): GithubErrorJson {
  const json: GithubErrorJson = { message: error.message };
  const type = error.extensions?.type;
  if (typeof type === "string") json.type = type;
  if (error.path) json.path = error.path;
  if (error.locations) json.locations = error.locations;
  const missingField = /^Cannot query field "([^"]+)" on type "([^"]+)"\./.exec(error.message);
  if (missingField) {
    json.message = `Field '${missingField[1]}' doesn't exist on type '${missingField[2]}'`;
    json.extensions = { code: "undefinedField", typeName: missingField[2], fieldName: missingField[1] };
  }
  return json;
}

const maxPageSize = 100;

/** GitHub refuses, before running anything, a connection without `first`/`last` or asking for more than 100. */
function paginationErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
): GithubErrorJson[] {
  const errors: GithubErrorJson[] = [];
  const typeInfo = new TypeInfo(schema);
  const argumentValue = (node: ValueNode | undefined): unknown => {
    if (!node) return undefined;
    if (node.kind === Kind.INT) return Number(node.value);
    if (node.kind === Kind.VARIABLE) return variables[node.name.value];
    if (node.kind === Kind.NULL) return null;
    return undefined;
  };
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const type = typeInfo.getType();
        if (!type || !getNamedType(type).name.endsWith("Connection")) return;
        const connection = node.name.value;
        const location = node.loc
          ? [{ line: node.loc.startToken.line, column: node.loc.startToken.column }]
          : [];
        const first = argumentValue(node.arguments?.find((a) => a.name.value === "first")?.value);
        const last = argumentValue(node.arguments?.find((a) => a.name.value === "last")?.value);
        if (first == null && last == null) {
          errors.push({
            type: "MISSING_PAGINATION_BOUNDARIES",
            message: `You must provide a \`first\` or \`last\` value to properly paginate the \`${connection}\` connection.`,
            locations: location,
          });
          return;
        }
        for (const [name, value] of [
          ["first", first],
          ["last", last],
        ] as const) {
          if (typeof value === "number" && (value > maxPageSize || value < 0)) {
            errors.push({
              type: "EXCESSIVE_PAGINATION",
              message: `Requesting ${value} records on the \`${connection}\` connection exceeds the \`${name}\` limit of ${maxPageSize} records.`,
              locations: location,
            });
          }
        }
      },
    }),
  );
  return errors;
}

/** Reads plain objects; a field the simulator never filled in is an error, not a silent null. */
const strictFieldResolver: GraphQLFieldResolver<unknown, GraphqlContext> = (source, args, ctx, info) => {
  if (source === null || typeof source !== "object") return undefined;
  const record = source as Record<string, unknown>;
  if (!(info.fieldName in record)) {
    throw new GraphQLErrorClass(
      `The claim-hold GitHub simulator does not implement ${info.parentType.name}.${info.fieldName}`,
      { extensions: { type: "SIMULATOR_UNSUPPORTED" } },
    );
  }
  const value = record[info.fieldName];
  return typeof value === "function" ? value.call(source, args, ctx, info) : value;
};

function queryRoot(ctx: GraphqlContext) {
  const { state } = ctx;
  return {
    repository: ({ owner, name }: { owner: string; name: string }) =>
      repoView(ctx, visibleRepo(ctx, state.findRepo(`${owner}/${name}`), `${owner}/${name}`)),
    node: ({ id }: { id: string }) => nodeView(ctx, id),
    nodes: ({ ids }: { ids: string[] }) => ids.map((id) => nodeView(ctx, id)),
    viewer: () => ({ ...actorView(ctx, ctx.viewer), __typename: "User" }),
    user: ({ login }: { login: string }) => {
      const user = state.userByLogin(login);
      if (user?.type !== "User") {
        throw githubError("NOT_FOUND", `Could not resolve to a User with the login of '${login}'.`);
      }
      return actorView(ctx, user);
    },
    rateLimit: () => ({
      cost: 1,
      limit: 5000,
      nodeCount: 0,
      remaining: 4999,
      used: 1,
      resetAt: new Date(state.now() + 3_600_000).toISOString(),
    }),
  };
}

export interface GraphqlAnswer {
  data?: unknown;
  errors?: GithubErrorJson[];
}

/** The mutations, with the fields a field fault names failing before they change anything. */
function mutationRoot(fieldFault: FieldFault | undefined): typeof mutations {
  if (!fieldFault) return mutations;
  return Object.fromEntries(
    Object.entries(mutations).map(([name, mutation]) => [
      name,
      (args: Parameters<typeof mutation>[0], ctx: GraphqlContext) => {
        if (JSON.stringify(args.input ?? {}).includes(fieldFault.inputIncludes)) {
          throw githubError(
            fieldFault.type ?? "UNPROCESSABLE",
            fieldFault.message ?? `Something went wrong while executing your query (${name}).`,
          );
        }
        return mutation(args, ctx);
      },
    ]),
  );
}

export async function executeGraphql(
  body: GraphqlBody,
  info: GraphqlOperationInfo,
  ctx: GraphqlContext,
  fieldFault?: FieldFault,
): Promise<GraphqlAnswer> {
  if (typeof body.query !== "string") {
    return { errors: [{ message: "A query attribute must be specified and must be a string." }] };
  }
  if (info.parseError) return { errors: [formatError(info.parseError)] };
  const schema = githubSchema();
  const document = info.document!;
  const validationErrors = validate(schema, document);
  if (validationErrors.length > 0) return { errors: validationErrors.map(formatError) };
  const variables = (body.variables ?? {}) as Record<string, unknown>;
  const pagination = paginationErrors(schema, document, variables);
  if (pagination.length > 0) return { errors: pagination };
  const result = await execute({
    schema,
    document,
    rootValue: info.operationType === "mutation" ? mutationRoot(fieldFault) : queryRoot(ctx),
    contextValue: ctx,
    variableValues: variables,
    ...(typeof body.operationName === "string" ? { operationName: body.operationName } : {}),
    fieldResolver: strictFieldResolver,
  });
  return {
    ...("data" in result ? { data: result.data } : {}),
    ...(result.errors?.length ? { errors: result.errors.map(formatError) } : {}),
  };
}
