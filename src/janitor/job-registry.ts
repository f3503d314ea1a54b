// Scheduled jobs: a registry of uniquely named jobs, run on an interval in every replica, by the lock holder only.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { LivenessStore } from "../providers/liveness-store.js";

export interface Job {
  name: string;
  intervalMs: number;
  run: () => Promise<void>;
}

export interface JobStatus {
  lastRunAt?: number;
  lastError?: string;
  consecutiveFailures: number;
  leader: boolean;
}

/**
 * Each job's timer fires in every replica; the run happens only where the store lock
 * `job:<name>` is held (SET NX PX with this replica's owner token, renewed at each tick,
 * released on stop). A rejection is caught, logged and kept for /readyz — never unhandled.
 */
export class JobRegistry {
  readonly #jobs = new Map<string, Job>();
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #status = new Map<string, JobStatus>();
  readonly #running = new Set<string>();
  readonly owner = randomUUID();

  constructor(
    private readonly deps: { store: LivenessStore; log: Logger; now: () => number; disabled?: string[] },
  ) {}

  register(job: Job): void {
    if (this.#jobs.has(job.name)) throw new Error(`a job named "${job.name}" is already registered`);
    this.#jobs.set(job.name, job);
    this.#status.set(job.name, { consecutiveFailures: 0, leader: false });
  }

  names(): string[] {
    return [...this.#jobs.keys()];
  }

  status(name: string): JobStatus | undefined {
    return this.#status.get(name);
  }

  /** One tick of a job: take or renew the lock, then run unless a previous run is still going. */
  async tick(name: string): Promise<boolean> {
    const job = this.#jobs.get(name);
    const status = this.#status.get(name);
    if (!job || !status || this.#running.has(name)) return false;
    try {
      status.leader = await this.deps.store.acquireLock(`job:${name}`, this.owner, job.intervalMs * 3);
    } catch (error) {
      this.#fail(name, status, error);
      return false;
    }
    if (!status.leader) return false;
    this.#running.add(name);
    try {
      await job.run();
      status.lastRunAt = this.deps.now();
      status.consecutiveFailures = 0;
      delete status.lastError;
      return true;
    } catch (error) {
      this.#fail(name, status, error);
      return false;
    } finally {
      this.#running.delete(name);
    }
  }

  #fail(name: string, status: JobStatus, error: unknown): void {
    status.consecutiveFailures++;
    status.lastError = error instanceof Error ? error.message : String(error);
    this.deps.log.error({ job: name, err: error }, "scheduled job failed");
  }

  start(): void {
    for (const job of this.#jobs.values()) {
      if (this.deps.disabled?.includes(job.name)) continue;
      const timer = setInterval(() => void this.tick(job.name), job.intervalMs);
      timer.unref();
      this.#timers.push(timer);
    }
  }

  async stop(): Promise<void> {
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
    for (const [name, status] of this.#status) {
      if (!status.leader) continue;
      await this.deps.store.releaseLock(`job:${name}`, this.owner).catch(() => undefined);
      status.leader = false;
    }
  }
}
