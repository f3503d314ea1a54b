// One simulated agent session: claims through the client library, heartbeats on its own timer, can crash or pause.
import {
  type ClaimHoldClient,
  type ClaimInput,
  type ClaimNextInput,
  type ClaimNextResult,
  type ClaimResult,
  isClaimHoldError,
} from "../../src/agent/client/index.js";
import type { Timeline } from "./timeline.js";

export class AgentSession {
  lease: ClaimResult["lease"] | null = null;
  /** Every lease this session ever got: the invariant watcher verifies them all. */
  readonly leases: ClaimResult["lease"][] = [];
  /** What the last `next` answered `queue_empty` had skipped, by reason (null: it picked, or never asked). */
  lastSkipped: Record<string, number> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #paused = false;
  /** While set, every heartbeat asks for a person (the flag is per beat: a beat without it withdraws the ask). */
  #blocker: string | null = null;
  #lastState: string | null = null;
  /** The heartbeat answer's last `paused` (absent: not paused). */
  #lastPaused: string | null = null;

  constructor(
    readonly name: string,
    readonly runtime: string,
    readonly client: ClaimHoldClient,
    private readonly timeline: Timeline,
  ) {}

  /** Claims (waiting out a takeover's grace beat like the CLI does); answers null when refused. */
  async claim(input: Omit<ClaimInput, "actor">): Promise<ClaimResult | null> {
    const subject = `#${input.issue}`;
    try {
      const result = await this.client.claim(
        { ...input, actor: { runtime: this.runtime, sessionId: this.name, host: "demo" } },
        {
          onTakeoverPending: (pending) =>
            this.timeline.line(
              this.label,
              `takeover of ${subject} pending: incumbent ${pending.incumbent?.sessionId ?? "?"} has ${pending.retryAfterSeconds}s of grace`,
              "warn",
            ),
        },
      );
      this.lease = result.lease;
      this.#lastState = null;
      this.#lastPaused = null;
      this.leases.push(result.lease);
      if (input.takeover && result.resume) {
        this.timeline.count("takeovers");
        this.timeline.line(
          this.label,
          `took over ${subject} → 201, generation ${result.lease.generation} (superseding ${result.resume.previousActor?.sessionId} gen ${result.resume.previousGeneration}), resuming ${result.resume.branch}`,
          "warn",
        );
      } else {
        this.timeline.count(result.created ? "claims" : "re-claims");
        const resume = result.resume
          ? `, resuming ${result.resume.branch} after generation ${result.resume.previousGeneration}`
          : "";
        this.timeline.line(
          this.label,
          `claimed ${subject} → ${result.created ? 201 : 200}, generation ${result.lease.generation}${resume}`,
          "ok",
        );
      }
      return result;
    } catch (error) {
      if (!isClaimHoldError(error)) throw error;
      this.timeline.count(`refused:${error.code}`);
      const holder = (error.details.holder as { sessionId?: string; login?: string } | undefined) ?? {};
      this.timeline.line(
        this.label,
        `claim ${subject} refused: ${error.status} ${error.code}${holder.sessionId || holder.login ? ` (held by ${holder.sessionId ?? `@${holder.login}`})` : ""}`,
        "bad",
      );
      return null;
    }
  }

  /** Asks the App for the best free issue and claims it (`claims/next`); answers null on an empty queue. */
  async next(input: Omit<ClaimNextInput, "actor">): Promise<ClaimNextResult | null> {
    try {
      const result = await this.client.claimNext({
        ...input,
        actor: { runtime: this.runtime, sessionId: this.name, host: "demo" },
      });
      this.lease = result.lease;
      this.#lastState = null;
      this.#lastPaused = null;
      this.leases.push(result.lease);
      this.lastSkipped = null;
      this.timeline.count("picks");
      this.timeline.count(result.picked.reasons.includes("takeover") ? "takeovers" : "claims");
      const { issue, rank, reasons } = result.picked;
      this.timeline.line(
        this.label,
        `next → picked #${issue} (rank ${rank}: ${reasons.join(", ") || "—"}) → ${result.created ? 201 : 200}, generation ${result.lease.generation}, branch ${result.lease.branch}`,
        "ok",
      );
      return result;
    } catch (error) {
      if (!isClaimHoldError(error)) throw error;
      this.timeline.count(`refused:${error.code}`);
      this.lastSkipped = (error.details.skipped ?? {}) as Record<string, number>;
      const skipped = Object.entries(this.lastSkipped)
        .filter(([, n]) => n > 0)
        .map(([reason, n]) => `${n} ${reason}`)
        .join(", ");
      this.timeline.line(
        this.label,
        `next → ${error.status} ${error.code}${skipped ? ` (skipped: ${skipped})` : ""}: nothing to do now`,
        error.code === "queue_empty" ? "warn" : "bad",
      );
      return null;
    }
  }

  /** The issue number of the lease held now (null when none). */
  get issue(): number | null {
    const subject = this.lease?.subject;
    return subject ? Number(subject.slice(subject.lastIndexOf("#") + 1)) : null;
  }

  /** Heartbeats every `seconds` until stopped, superseded or gone. */
  startBeating(seconds: number): void {
    this.stopBeating();
    this.#timer = setInterval(() => void this.beat(), seconds * 1000);
  }

  stopBeating(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** The session crashes: no more heartbeats, ever. */
  crash(): void {
    this.stopBeating();
    this.timeline.line(this.label, "💥 crashed (stops heartbeating)", "bad");
  }

  /** A long tool call: heartbeats are skipped until `resume`. */
  pause(): void {
    this.#paused = true;
    this.timeline.line(this.label, "⏸  busy in a long tool call (no heartbeats)", "warn");
  }

  resume(): void {
    this.#paused = false;
    this.timeline.line(this.label, "▶  back", "info");
    void this.beat();
  }

  /** Stuck on a question only a person can answer: the next heartbeats carry `needsHuman` and the blocker. */
  async askForHuman(blocker: string): Promise<void> {
    this.#blocker = blocker;
    this.timeline.line(this.label, `asks for a person: "${blocker}"`, "warn");
    await this.beat();
  }

  /** The answer came: the next heartbeat goes without `needsHuman`, which clears the ask. */
  async answered(): Promise<void> {
    this.#blocker = null;
    this.timeline.line(this.label, "got its answer, carries on", "info");
    await this.beat();
  }

  /** The last heartbeat answer's `paused` (`budget`), null when it carried none. */
  get pausedBy(): string | null {
    return this.#lastPaused;
  }

  /** The state the last accepted heartbeat answered (null before the first). */
  get lastState(): string | null {
    return this.#lastState;
  }

  /** A heartbeat that reports what the lease has spent so far (cumulative, dollars). */
  async reportSpend(costUsd: number): Promise<boolean> {
    this.timeline.line(this.label, `reports $${costUsd.toFixed(2)} spent on its heartbeat`, "info");
    return this.beat({ usage: { costUsd } });
  }

  async beat(options: { quiet?: boolean; usage?: { costUsd: number } } = {}): Promise<boolean> {
    if (!this.lease || this.#paused) return false;
    try {
      const ask = this.#blocker ? { needsHuman: true, blocker: this.#blocker } : {};
      const usage = options.usage ? { usage: options.usage } : {};
      const answer = await this.client.heartbeat(this.lease, { ...ask, ...usage });
      this.timeline.count("heartbeats");
      const paused = answer.paused ?? null;
      // Printed when the state changes (a waiting holder beats every few seconds and stays waiting).
      if (
        !options.quiet &&
        (answer.state !== this.#lastState || paused !== this.#lastPaused) &&
        (answer.state !== "active" || this.#lastState)
      )
        this.timeline.line(
          this.label,
          `heartbeat → ${answer.state}${paused ? `, paused: "${paused}" (stops spending until a person answers)` : ""}`,
          paused ? "warn" : "info",
        );
      this.#lastState = answer.state;
      this.#lastPaused = paused;
      return true;
    } catch (error) {
      if (!isClaimHoldError(error)) throw error;
      this.timeline.count(`heartbeat:${error.code}`);
      const by = error.details.by as { sessionId?: string; login?: string } | undefined;
      this.timeline.line(
        this.label,
        `heartbeat → ${error.status} ${error.code}${by ? ` by ${by.sessionId ?? `@${by.login}`} (generation ${error.details.generation})` : ""}${error.details.reason ? ` (${error.details.reason})` : ""}: stops working on it`,
        "bad",
      );
      this.stopBeating();
      this.lease = null;
      return false;
    }
  }

  async attest(sha: string): Promise<void> {
    if (!this.lease) return;
    await this.client.attest(this.lease, sha);
    this.timeline.line(this.label, `attested ${sha.slice(0, 7)} (generation ${this.lease.generation})`, "ok");
  }

  async release(outcome: "completed" | "handoff" | "abandoned" | "failed", note: string): Promise<void> {
    if (!this.lease) return;
    this.stopBeating();
    await this.client.release(this.lease, { outcome, note });
    this.timeline.count("releases");
    this.timeline.line(
      this.label,
      `released #${this.lease.subject.split("#").at(-1)} (${outcome}${outcome === "failed" ? `: ${note}` : ""})`,
      outcome === "failed" ? "bad" : "ok",
    );
    this.lease = null;
  }

  get label(): string {
    return `${this.runtime}/${this.name}`;
  }
}
