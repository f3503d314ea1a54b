// Every API request the simulator answered, so tests and benchmarks can count GitHub calls per operation.

export interface LoggedRequest {
  /** Answer order: the log records a request once it is answered. */
  seq: number;
  /**
   * Arrival order, taken when the request reached the simulator (before any fault delay): a request
   * answered late keeps its early arrival. Compare with `arrivalMark()`, never with `seq`.
   */
  arrival: number;
  method: string;
  /** The path without the query string and without the `/api/v3` prefix, e.g. `/repos/o/r/labels/bug`. */
  path: string;
  /** The matched route, e.g. `GET /repos/{owner}/{repo}/labels/{name}`, or `POST /graphql`. */
  route: string;
  /** GraphQL only: the operation's name (undefined for an anonymous document). */
  operationName?: string;
  /** GraphQL only: `query` or `mutation`. */
  operationType?: string;
  /** GraphQL mutations only: the top-level fields (not their aliases), in document order. */
  mutationFields?: string[];
  /** Who called: `app` (JWT), `installation`, `user`, or `anonymous`. */
  caller: string;
  status: number;
  /** Set when a fault rule answered instead of the simulator. */
  fault?: boolean;
  /** When the answer was ready (epoch ms), and how long the simulator took from arrival to it: GitHub's server time. */
  answeredAt?: number;
  serverMs?: number;
}

export interface RequestMatch {
  method?: string;
  /** A route (`GET /repos/{owner}/{repo}/labels/{name}`), a path glob with `*`, or a RegExp on the path. */
  path?: string | RegExp;
  /** A GraphQL operation name. */
  operation?: string;
  /** A GraphQL mutation field name (`addComment`). */
  mutation?: string;
  /** Text the raw request body must contain (e.g. an issue's node id); faults only, not the log. */
  bodyIncludes?: string;
}

/** `*` matches within a segment, `**` across segments; a route template's `{param}` matches one segment. */
function pathPattern(pattern: string): RegExp {
  const source = pattern
    .split(/(\*\*|\*|\{[^}]+\})/)
    .map((part) => {
      if (part === "**") return ".*";
      if (part === "*" || /^\{[^}]+\}$/.test(part)) return "[^/]+";
      return part.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("");
  return new RegExp(`^${source}$`);
}

export function requestMatches(
  request: Pick<LoggedRequest, "method" | "path" | "route" | "operationName" | "mutationFields"> & {
    body?: string;
  },
  match: RequestMatch,
): boolean {
  if (match.method && match.method.toUpperCase() !== request.method) return false;
  if (match.operation !== undefined && match.operation !== request.operationName) return false;
  if (match.mutation !== undefined && !(request.mutationFields ?? []).includes(match.mutation)) return false;
  if (match.bodyIncludes !== undefined && !(request.body ?? "").includes(match.bodyIncludes)) return false;
  if (match.path !== undefined) {
    if (match.path instanceof RegExp) return match.path.test(request.path);
    const routeMatch = /^[A-Z]+ /.test(match.path);
    if (routeMatch) return match.path === request.route;
    return pathPattern(match.path).test(request.path);
  }
  return true;
}

export class RequestLog {
  readonly entries: LoggedRequest[] = [];
  #seq = 0;
  #arrivals = 0;

  /** A request reached the simulator: its place in arrival order, for `record`. */
  arrive(): number {
    return ++this.#arrivals;
  }

  record(entry: Omit<LoggedRequest, "seq">): LoggedRequest {
    const logged = { seq: ++this.#seq, ...entry };
    this.entries.push(logged);
    return logged;
  }

  /** A position to count from: `log.count({}, mark)`. */
  mark(): number {
    return this.#seq;
  }

  since(mark: number): LoggedRequest[] {
    return this.entries.filter((e) => e.seq > mark);
  }

  /** A position in arrival order, for `arrivedSince`. */
  arrivalMark(): number {
    return this.#arrivals;
  }

  /** The answered requests that arrived after the mark (one sent before it and answered after is not among them). */
  arrivedSince(mark: number): LoggedRequest[] {
    return this.entries.filter((e) => e.arrival > mark);
  }

  count(match: RequestMatch = {}, sinceMark = 0): number {
    return this.since(sinceMark).filter((e) => requestMatches(e, match)).length;
  }

  /** Counts per operation: `graphql:SubjectStatus`, or the REST route. */
  counts(sinceMark = 0): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const entry of this.since(sinceMark)) {
      const key = entry.route.endsWith("/graphql")
        ? `graphql:${entry.operationName ?? "anonymous"}`
        : entry.route;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  reset(): void {
    this.entries.length = 0;
  }
}
