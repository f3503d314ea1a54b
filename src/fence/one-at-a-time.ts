// Work under one id runs one piece after another in this process: at most one check run is created per head.
export class OneAtATime {
  readonly #running = new Map<string, Promise<unknown>>();

  /** Runs `work` once every earlier piece under `id` has settled (a failed one included). */
  async run<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#running.get(id) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(work);
    this.#running.set(id, run);
    try {
      return await run;
    } finally {
      if (this.#running.get(id) === run) this.#running.delete(id);
    }
  }
}
