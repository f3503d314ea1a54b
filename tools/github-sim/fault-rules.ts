// Injected faults: the next N requests that match fail with a status, or answer late.
import { type LoggedRequest, type RequestMatch, requestMatches } from "./request-log.js";

export interface FaultSpec extends RequestMatch {
  /** How many matching requests the fault applies to (default 1; `Infinity` for all). */
  times?: number;
  /** Answer with this status instead of the simulator's answer. */
  status?: number;
  /** The body for `status` (default GitHub's `{ message }` for the status). */
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering (with `status`, or with the real answer). */
  delayMs?: number;
  /**
   * Hold the request, neither carried out nor answered, until this promise settles: a write that
   * GitHub applies late, after whatever the test does meanwhile.
   */
  until?: Promise<void>;
  /** Told when a held request has arrived (so the test knows the write is on its way). */
  onArrival?: () => void;
  /**
   * With `status`: the simulator carries the request out first, then answers `status` anyway — a
   * response lost on the way back (GitHub committed the write, the caller saw a 502).
   */
  applied?: boolean;
  /**
   * For a GraphQL mutation: carry the request out, but fail each top-level mutation field whose
   * input contains `inputIncludes` the way GitHub fails one field of a multi-mutation document
   * (its alias `null` in `data`, one entry in `errors[]` with `path: [alias]`, HTTP 200); the other
   * fields run as usual.
   */
  field?: FieldFault;
}

export interface FieldFault {
  /** Text the field's `input` (as JSON) must contain, e.g. an issue's node id. */
  inputIncludes: string;
  /** The GraphQL error's `type` (default `UNPROCESSABLE`). */
  type?: string;
  message?: string;
}

export interface Fault extends FaultSpec {
  id: number;
  remaining: number;
  hits: number;
}

export class FaultRules {
  readonly faults: Fault[] = [];
  #id = 0;

  add(spec: FaultSpec): Fault {
    const fault: Fault = { ...spec, id: ++this.#id, remaining: spec.times ?? 1, hits: 0 };
    this.faults.push(fault);
    return fault;
  }

  /** Takes the first live fault matching the request, counting it down. */
  take(
    request: Pick<LoggedRequest, "method" | "path" | "route" | "operationName" | "mutationFields"> & {
      body?: string;
    },
  ) {
    const fault = this.faults.find((f) => f.remaining > 0 && requestMatches(request, f));
    if (!fault) return undefined;
    fault.remaining--;
    fault.hits++;
    return fault;
  }

  clear(): void {
    this.faults.length = 0;
  }
}

const reasons: Record<number, string> = {
  400: "Bad Request",
  401: "Bad credentials",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  422: "Validation Failed",
  429: "Too Many Requests",
  500: "Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export function faultBody(status: number): { message: string; documentation_url: string; status: string } {
  return {
    message: reasons[status] ?? `HTTP ${status}`,
    documentation_url: "https://docs.github.com/rest",
    status: String(status),
  };
}
