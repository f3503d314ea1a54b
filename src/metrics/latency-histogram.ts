// A Prometheus histogram whose observations allocate nothing: series bound once, plain numbers per call, text built at scrape.
import type { Registry } from "prom-client";

/** One labelled series of the histogram, bound once and observed on the hot path. */
export interface LatencySeries {
  observe(seconds: number): void;
}

interface Series {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A histogram registered on `registry` like prom-client's own (same name, help, bucket and
 * label lines), for calls too frequent for prom-client's observe, which builds a label object and
 * a hash string per call.
 */
export class LatencyHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly name: string;
  readonly help: string;
  readonly #buckets: readonly number[];
  readonly #series = new Map<string, Series>();

  constructor(options: { name: string; help: string; buckets: readonly number[]; registry: Registry }) {
    this.name = options.name;
    this.help = options.help;
    this.#buckets = [...options.buckets].sort((a, b) => a - b);
    options.registry.registerMetric(this as never);
  }

  /** The series of `labels` (one per distinct label set, made on first use). */
  series(labels: Record<string, string>): LatencySeries {
    const key = JSON.stringify(labels);
    let series = this.#series.get(key);
    if (!series) {
      series = {
        labels: { ...labels },
        counts: new Float64Array(this.#buckets.length + 1),
        sum: 0,
        count: 0,
      };
      this.#series.set(key, series);
    }
    const bound = series;
    const buckets = this.#buckets;
    return {
      observe(seconds) {
        let at = 0;
        while (at < buckets.length && seconds > buckets[at]!) at++;
        bound.counts[at]!++;
        bound.sum += seconds;
        bound.count++;
      },
    };
  }

  /** What prom-client's Registry reads: the bucket, sum and count samples of every series observed. */
  async get() {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const series of this.#series.values()) {
      if (series.count === 0) continue;
      let cumulative = 0;
      for (let at = 0; at < this.#buckets.length; at++) {
        cumulative += series.counts[at]!;
        values.push({
          metricName: `${this.name}_bucket`,
          labels: { le: this.#buckets[at]!, ...series.labels },
          value: cumulative,
        });
      }
      values.push({
        metricName: `${this.name}_bucket`,
        labels: { le: "+Inf", ...series.labels },
        value: series.count,
      });
      values.push({ metricName: `${this.name}_sum`, labels: series.labels, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: series.labels, value: series.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const series of this.#series.values()) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}
