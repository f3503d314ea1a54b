// Scheduled jobs: a registry of uniquely named jobs, run on an interval in every replica, by the lock holder only.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { JobLocks } from "../providers/app-stores.js";

export interface Job {
  name: string;
  intervalMs: number;
  /**
   * How long a run's lock lives unless renewed (default 6 s). It is renewed every third of that
   * while the run goes on, so a run may last as long as it needs, and a replica that dies mid-run
   * frees the job within this time.
   */
  runLockMs?: number;
  /** `signal` aborts when the run lost its lock (another replica may be running the job now). */
  run: (signal: AbortSignal) => Promise<void>;
}

export interface JobStatus {
  lastRunAt?: number;
  lastError?: string;
  consecutiveFailures: number;
  leader: boolean;
}

/** A run refused, without waiting, because the job is running already (on this replica or another). */
export class JobBusyError extends Error {
  constructor(readonly job: string) {
    super(`the job "${job}" is running already`);
    this.name = "JobBusyError";
  }
}

/** The store locks of a job: `leader` elects the replica whose schedule runs it, `run` is held by the run going on. */
export function jobLockNames(name: string): { leader: string; run: string } {
  return { leader: `job:${name}`, run: `job:${name}:run` };
}

const defaultRunLockMs = 6_000;

/**
 * Each job's timer fires in every replica; the schedule runs the job only where the leader lock
 * `job:<name>` is held (SET NX PX with this replica's owner token for three intervals, renewed at
 * each tick and while a run goes on, released on stop). Every run, scheduled or `runNow`, also holds
 * the run lock `job:<name>:run` (same owner, renewed while it runs, released when it ends), so runs
 * of one job never overlap across replicas. The operator's run takes only the run lock: the leader
 * holds its lock between runs too, and taking that would refuse every operator run on the other
 * replicas. A rejection is caught, logged and kept for /readyz — never unhandled.
 */
export class JobRegistry {
  readonly #jobs = new Map<string, Job>();
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #status = new Map<string, JobStatus>();
  readonly #running = new Set<string>();
  #stopped = false;
  readonly owner = randomUUID();

  constructor(
    private readonly deps: { store: JobLocks; log: Logger; now: () => number; disabled?: string[] },
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

  /** One tick of a job: take or renew the leader lock, then run unless a run is going on (here or elsewhere). */
  async tick(name: string): Promise<boolean> {
    const job = this.#jobs.get(name);
    const status = this.#status.get(name);
    if (!job || !status || this.#running.has(name)) return false;
    // Marked before the first await: a runNow here carries the same owner token, so the locks cannot tell them apart.
    this.#running.add(name);
    try {
      status.leader = await this.deps.store.acquireLock(
        jobLockNames(name).leader,
        this.owner,
        job.intervalMs * 3,
      );
      if (!status.leader) return false;
      // Null: an operator's run holds the job on another replica; this tick has nothing to do.
      if (!(await this.#whileLocked(job, (signal) => job.run(signal)))) return false;
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

  /**
   * Runs `work` now, under the job's run lock, as the schedule runs the job: the operator's sweep.
   * Rejects with JobBusyError, without waiting, while a run of the job goes on in any replica.
   * `work`'s own failure is the caller's (it does not count in the job's status).
   */
  async runNow<T>(name: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const job = this.#jobs.get(name);
    if (!job) throw new Error(`no job named "${name}" is registered`);
    if (this.#running.has(name)) throw new JobBusyError(name);
    this.#running.add(name);
    try {
      const outcome = await this.#whileLocked(job, work);
      if (!outcome) throw new JobBusyError(name);
      return outcome.value;
    } finally {
      this.#running.delete(name);
    }
  }

  /** `work` while this replica holds the job's run lock, renewed meanwhile; null when another holds it. */
  async #whileLocked<T>(job: Job, work: (signal: AbortSignal) => Promise<T>): Promise<{ value: T } | null> {
    const { store, log } = this.deps;
    const holdMs = job.runLockMs ?? defaultRunLockMs;
    const lock = jobLockNames(job.name).run;
    if (!(await store.acquireLock(lock, this.owner, holdMs))) return null;
    const lost = new AbortController();
    // One renewal at a time, and the last one settled before the release (else it could take the lock back).
    let renewing = Promise.resolve();
    const renew = setInterval(() => {
      renewing = renewing.then(() => this.#renew(job, holdMs, lost));
    }, holdMs / 3);
    renew.unref();
    try {
      return { value: await work(lost.signal) };
    } finally {
      clearInterval(renew);
      await renewing;
      // A failed release must not hide the outcome of the run itself.
      try {
        await store.releaseLock(lock, this.owner);
      } catch (error) {
        log.warn({ job: job.name, err: error }, "could not release a job's run lock; it expires on its own");
      }
    }
  }

  async #renew(job: Job, holdMs: number, lost: AbortController): Promise<void> {
    if (lost.signal.aborted) return;
    const { store, log } = this.deps;
    const locks = jobLockNames(job.name);
    try {
      if (!(await store.acquireLock(locks.run, this.owner, holdMs))) {
        log.error(
          { job: job.name },
          "a running job lost its lock to another replica; signalling it to stop early",
        );
        lost.abort(new JobBusyError(job.name));
        return;
      }
      const status = this.#status.get(job.name);
      // A long run keeps this replica the leader too (never after stop(): that released it on purpose).
      if (status?.leader && !this.#stopped) {
        status.leader = await store.acquireLock(locks.leader, this.owner, job.intervalMs * 3);
      }
    } catch (error) {
      // The store did not answer: the lock may still be ours; the next renewal asks again.
      log.warn({ job: job.name, err: error }, "could not renew a running job's lock");
    }
  }

  #fail(name: string, status: JobStatus, error: unknown): void {
    status.consecutiveFailures++;
    status.lastError = error instanceof Error ? error.message : String(error);
    this.deps.log.error({ job: name, err: error }, "scheduled job failed");
  }

  start(): void {
    this.#stopped = false;
    for (const job of this.#jobs.values()) {
      if (this.deps.disabled?.includes(job.name)) continue;
      const timer = setInterval(() => void this.tick(job.name), job.intervalMs);
      timer.unref();
      this.#timers.push(timer);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
    for (const [name, status] of this.#status) {
      if (!status.leader) continue;
      await this.deps.store.releaseLock(jobLockNames(name).leader, this.owner).catch(() => undefined);
      status.leader = false;
    }
  }
}
