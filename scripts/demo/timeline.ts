// The demo's timeline: timestamped lines of who did what, and the counters of the closing summary.

const colours = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number, text: string) => (colours ? `\u001b[${code}m${text}\u001b[0m` : text);

export type Tone = "ok" | "bad" | "warn" | "info";
const toneCode: Record<Tone, number> = { ok: 32, bad: 31, warn: 33, info: 36 };

export class Timeline {
  started = Date.now();
  readonly counts = new Map<string, number>();
  readonly violations: string[] = [];

  /** The scripted moments count from here (after the setup). */
  restart(): void {
    this.started = Date.now();
  }

  /** Seconds since the start, as the demo's scripted moments count them. */
  elapsed(): number {
    return (Date.now() - this.started) / 1000;
  }

  line(who: string, what: string, tone: Tone = "info"): void {
    const at = `+${this.elapsed().toFixed(1).padStart(5)}s`;
    process.stdout.write(`${paint(90, at)}  ${paint(toneCode[tone], who.padEnd(22))} ${what}\n`);
  }

  count(name: string, by = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + by);
  }

  /** An invariant visibly broke: printed at once, and the demo exits non-zero. */
  violation(what: string): void {
    if (this.violations.includes(what)) return;
    this.violations.push(what);
    this.line("INVARIANT", what, "bad");
  }
}
