// Tells a GraphQL read (only `query` operations) from a write by its document, erring towards "write".

/** Block strings (with `\"""` escapes), strings and comments: text in them is no part of the syntax. */
const notSyntax = /"""(?:\\"""|[\s\S])*?"""|"(?:[^"\\\r\n]|\\.)*"|#[^\r\n]*/g;
/** An operation keyword that writes (a `$variable` of that name is none). */
const writingKeyword = /(?<![\w$])(?:mutation|subscription)(?!\w)/;

/**
 * True when every operation of `document` is a query (`query …` or the `{ … }` shorthand).
 * It reads only what lies outside any selection set, where operation keywords stand, so a field,
 * argument or fragment named like one cannot fool it; anything it cannot tell is a write, because
 * only writes must keep to GitHub's one-a-second rule and a read sent as a write is merely slower.
 */
export function isGraphQLRead(document: string): boolean {
  const syntax = document.replace(notSyntax, " ");
  let depth = 0;
  let outside = "";
  let from = 0;
  for (let at = 0; at < syntax.length; at++) {
    const char = syntax[at];
    if (char !== "{" && char !== "}") continue;
    if (depth === 0) outside += ` ${syntax.slice(from, at)}`;
    depth += char === "{" ? 1 : -1;
    if (depth < 0) return false;
    from = at + 1;
  }
  // Unbalanced braces, or no selection set at all: not a document this can read.
  if (depth !== 0 || from === 0) return false;
  outside += ` ${syntax.slice(from)}`;
  return !writingKeyword.test(outside);
}

/**
 * A request as Octokit's request hooks see it: its route and parameters merged but not yet parsed,
 * so a GraphQL document is the `query` parameter (`body.query` once parsed, taken as well).
 */
export interface RequestOptionsLike {
  method?: string;
  url?: string;
  query?: unknown;
  body?: unknown;
}

/** True for a `POST …/graphql` whose document only reads (GitHub Enterprise Server's `/api/graphql` too). */
export function isGraphQLReadRequest(options: RequestOptionsLike): boolean {
  if (options.method !== "POST" || typeof options.url !== "string") return false;
  const { pathname } = new URL(options.url, "http://github.test");
  if (!pathname.endsWith("/graphql")) return false;
  const query = options.query ?? (options.body as { query?: unknown } | null | undefined)?.query;
  return typeof query === "string" && isGraphQLRead(query);
}
