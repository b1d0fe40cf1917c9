// Metric vectors for hot paths: a few observations per API request and per work queue item. prom-client's inc() and
// observe() take a labels object and validate and hash it on every call, a share of the main thread's CPU that showed
// in profiles of node initialization (bench/upstream/node-init-cpu.ts). Here a series is looked up once by its label values
// (withLabelValues, as component-base's CounterVec/GaugeVec/HistogramVec) and an observation is a bucket search and
// two additions. Registered in prom-client registries, they expose the same text and JSON as prom-client's Counter,
// Gauge and Histogram (test/unit/metrics/vec.test.ts compares them).
import type { Metric, Registry } from 'prom-client';
import { goFloat } from './go-float.ts';

type Labels = Record<string, string>;

export interface VecOptions {
  name: string;
  help: string;
  labelNames: readonly string[];
  registers: readonly Registry[];
}

interface ExportedValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
  /** prom-client's text path prints these after `labels` (a histogram's series labels come after `le`). */
  sharedLabels?: Labels;
  /** prom-client gives every bucket one (null without exemplars). */
  exemplar?: null;
}

interface Exported {
  name: string;
  help: string;
  type: string;
  aggregator: 'sum';
  values: ExportedValue[];
}

abstract class Vec<S> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = 'sum' as const;
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  readonly labelNames: readonly string[];
  protected readonly series = new Map<string, { labels: Labels; series: S }>();

  constructor(options: VecOptions) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    // prom-client's registry takes any object with its metric shape (name, help, type, get, reset); its typings
    // only name its own classes.
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The series of these label values (in labelNames order), created at zero on first use (and again after reset). */
  withLabelValues(...values: string[]): S {
    const key = values.length === 1 ? (values[0] as string) : values.join('\u0000');
    const found = this.series.get(key);
    if (found) return found.series;
    if (values.length !== this.labelNames.length) {
      throw new Error(`${this.name}: ${values.length} label values for ${this.labelNames.length} labels`);
    }
    const labels: Labels = {};
    this.labelNames.forEach((label, i) => (labels[label] = values[i] as string));
    const series = this.create();
    this.series.set(key, { labels, series });
    return series;
  }

  reset(): void {
    this.series.clear();
  }

  /** The JSON form (registry.getMetricsAsJSON, getSingleMetric(...).get()). */
  get(): Promise<Exported> {
    return Promise.resolve(this.exported(false));
  }

  /** The form the registry's text exposition reads. */
  getForPromString(): Promise<Exported> {
    return Promise.resolve(this.exported(true));
  }

  protected abstract create(): S;
  protected abstract values(labels: Labels, series: S, forText: boolean): ExportedValue[];

  private exported(forText: boolean): Exported {
    const values: ExportedValue[] = [];
    for (const { labels, series } of this.series.values()) values.push(...this.values(labels, series, forText));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

export interface CounterSeries {
  inc(by?: number): void;
}

export interface GaugeSeries {
  inc(by?: number): void;
  dec(by?: number): void;
  set(value: number): void;
}

class CounterValue implements CounterSeries {
  value = 0;
  inc(by = 1): void {
    if (!(by >= 0)) throw new Error(`a counter cannot go down (inc by ${by})`);
    this.value += by;
  }
}

class GaugeValue implements GaugeSeries {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
  dec(by = 1): void {
    this.value -= by;
  }
  set(value: number): void {
    this.value = value;
  }
}

/** A vector whose series each hold one number (counters and gauges). */
abstract class ValueVec<S> extends Vec<S> {
  protected abstract override create(): S & { value: number };
  protected values(labels: Labels, series: S): ExportedValue[] {
    return [{ value: (series as S & { value: number }).value, labels }];
  }
}

export class CounterVec extends ValueVec<CounterSeries> {
  readonly type = 'counter' as const;
  protected create(): CounterValue {
    return new CounterValue();
  }
}

export class GaugeVec extends ValueVec<GaugeSeries> {
  readonly type = 'gauge' as const;
  protected create(): GaugeValue {
    return new GaugeValue();
  }
}

export interface HistogramSeries {
  observe(value: number): void;
}

class HistogramValue implements HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  private readonly bounds: readonly number[];

  constructor(bounds: readonly number[]) {
    this.bounds = bounds;
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= (bounds[i] as number)) {
        (this.counts[i] as number)++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }
}

export class HistogramVec extends Vec<HistogramSeries> {
  readonly type = 'histogram' as const;
  readonly buckets: readonly number[];

  constructor(options: VecOptions & { buckets: readonly number[] }) {
    super(options);
    this.buckets = [...options.buckets].sort((a, b) => a - b);
  }

  protected create(): HistogramSeries {
    return new HistogramValue(this.buckets);
  }

  protected values(labels: Labels, series: HistogramSeries, forText: boolean): ExportedValue[] {
    const h = series as HistogramValue;
    // As prom-client: for the text form the series' labels are shared labels printed after `le`; the JSON form has
    // them merged into each value's labels.
    const value = (metricName: string, v: number, own: Record<string, string | number>): ExportedValue =>
      forText
        ? { value: v, labels: own, metricName, sharedLabels: labels }
        : { value: v, labels: { ...own, ...labels }, metricName };
    const bucket = (v: number, le: string | number): ExportedValue => ({
      ...value(`${this.name}_bucket`, v, { le }),
      exemplar: null,
    });
    const out: ExportedValue[] = [];
    let cumulative = 0;
    this.buckets.forEach((bound, i) => {
      cumulative += h.counts[i] as number;
      // The text form writes `le` as client_golang does (1e-08, not 1e-8); the JSON form keeps the number.
      out.push(bucket(cumulative, forText ? goFloat(bound) : bound));
    });
    out.push(bucket(h.count, '+Inf'));
    out.push(value(`${this.name}_sum`, h.sum, {}));
    out.push(value(`${this.name}_count`, h.count, {}));
    return out;
  }
}
