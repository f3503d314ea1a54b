// Injected faults on the Gitea simulator: the next N matching requests fail with a status, answer late, or wait until released.

export interface GiteaRequestMatch {
  method?: string;
  /** A swagger route as the request log names it (`PATCH /repos/{owner}/{repo}/issues/{index}`). */
  route?: string;
  /** Only requests that change something (every method but GET). */
  writes?: boolean;
  /** Only requests about this issue's index: its routes, and its comments' routes by comment id. */
  issue?: number;
}

export interface GiteaFaultSpec extends GiteaRequestMatch {
  /** How many matching requests it applies to (default 1; `Infinity` for all). */
  times?: number;
  /** Answer with this status (Gitea's `{ message }`) instead of the simulator's answer. */
  status?: number;
  /** Wait this long before answering (with `status`, or with the real answer). */
  delayMs?: number;
  /** Hold the request, neither carried out nor answered, until this settles: a write that lands late. */
  until?: Promise<void>;
  /** Told when a held request has arrived. */
  onArrival?: () => void;
  /** With `status`: carried out first, then answered `status` anyway (an answer lost on the way back). */
  applied?: boolean;
}

export interface GiteaFault extends GiteaFaultSpec {
  id: number;
  remaining: number;
  hits: number;
}

export interface MatchedRequest {
  method: string;
  route: string;
  issue: number | null;
}

export function giteaRequestMatches(request: MatchedRequest, match: GiteaRequestMatch): boolean {
  if (match.method && match.method.toUpperCase() !== request.method) return false;
  if (match.route !== undefined && match.route !== request.route) return false;
  if (match.writes && request.method === "GET") return false;
  if (match.issue !== undefined && match.issue !== request.issue) return false;
  return true;
}

export class GiteaFaultRules {
  readonly faults: GiteaFault[] = [];
  #id = 0;

  add(spec: GiteaFaultSpec): GiteaFault {
    const fault: GiteaFault = { ...spec, id: ++this.#id, remaining: spec.times ?? 1, hits: 0 };
    this.faults.push(fault);
    return fault;
  }

  /** Takes the first live fault matching the request, counting it down. */
  take(request: MatchedRequest): GiteaFault | undefined {
    const fault = this.faults.find((f) => f.remaining > 0 && giteaRequestMatches(request, f));
    if (!fault) return undefined;
    fault.remaining--;
    fault.hits++;
    return fault;
  }

  clear(): void {
    this.faults.length = 0;
  }
}
