import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { goFloat } from '../../../host/src/metrics/go-float.ts';
import { CounterVec, GaugeVec, HistogramVec } from '../../../host/src/metrics/vec.ts';

const BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];
const SMALL_BUCKETS = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);

/** The same observations through prom-client's classes and ours, in two registries. */
function both(): { theirs: Registry; ours: Registry } {
  const theirs = new Registry();
  const ours = new Registry();
  const common = (registry: Registry) => ({ registers: [registry] });

  const c1 = new Counter({
    name: 'req_total',
    help: 'Requests.',
    labelNames: ['code', 'method', 'host'],
    ...common(theirs),
  });
  const c2 = new CounterVec({
    name: 'req_total',
    help: 'Requests.',
    labelNames: ['code', 'method', 'host'],
    ...common(ours),
  });
  const g1 = new Gauge({ name: 'depth', help: 'Depth.', labelNames: ['name'], ...common(theirs) });
  const g2 = new GaugeVec({ name: 'depth', help: 'Depth.', labelNames: ['name'], ...common(ours) });
  const h1 = new Histogram({
    name: 'lat_seconds',
    help: 'Latency.',
    labelNames: ['verb', 'host'],
    buckets: BUCKETS,
    ...common(theirs),
  });
  const h2 = new HistogramVec({
    name: 'lat_seconds',
    help: 'Latency.',
    labelNames: ['verb', 'host'],
    buckets: BUCKETS,
    ...common(ours),
  });
  const s1 = new Histogram({
    name: 'work_seconds',
    help: 'Work "x"\\y.',
    labelNames: ['name'],
    buckets: SMALL_BUCKETS,
    ...common(theirs),
  });
  const s2 = new HistogramVec({
    name: 'work_seconds',
    help: 'Work "x"\\y.',
    labelNames: ['name'],
    buckets: SMALL_BUCKETS,
    ...common(ours),
  });

  for (const [code, method] of [
    ['200', 'GET'],
    ['200', 'GET'],
    ['409', 'PUT'],
    ['<error>', 'PATCH'],
  ] as const) {
    c1.inc({ code, method, host: '127.0.0.1:6443' });
    c2.withLabelValues(code, method, '127.0.0.1:6443').inc();
  }
  c1.inc({ code: '201', method: 'POST', host: 'h' }, 0);
  c2.withLabelValues('201', 'POST', 'h').inc(0);
  for (const [name, delta] of [
    ['Nodes', 1],
    ['Nodes', 1],
    ['service', 1],
    ['Nodes', -1],
  ] as const) {
    if (delta > 0) g1.inc({ name });
    else g1.dec({ name });
    if (delta > 0) g2.withLabelValues(name).inc();
    else g2.withLabelValues(name).dec();
  }
  g1.set({ name: 'route "q"' }, 7);
  g2.withLabelValues('route "q"').set(7);
  // On a bound, between bounds, above the largest one, zero.
  for (const [verb, v] of [
    ['GET', 0.005],
    ['GET', 0.07],
    ['PUT', 61],
    ['GET', 0],
    ['PUT', 2],
  ] as const) {
    h1.observe({ verb, host: 'h' }, v);
    h2.withLabelValues(verb, 'h').observe(v);
  }
  for (const v of [3e-9, 1e-8, 2.5e-5, 0.3, 12]) {
    s1.observe({ name: 'Nodes' }, v);
    s2.withLabelValues('Nodes').observe(v);
  }
  return { theirs, ours };
}

describe('metric vectors', () => {
  it('expose the same text as prom-client', async () => {
    const { theirs, ours } = both();
    // Bucket bounds the way client_golang writes them (1e-08 where prom-client writes 1e-8): go-float.ts.
    const theirsText = (await theirs.metrics()).replace(
      /le="([^"+]+)"/g,
      (_, bound: string) => `le="${goFloat(Number(bound))}"`,
    );
    expect(theirsText).toContain('le="1e-08"');
    expect(await ours.metrics()).toBe(theirsText);
  });

  it('expose the same JSON as prom-client', async () => {
    const { theirs, ours } = both();
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it('hand out one series per label values', () => {
    const vec = new CounterVec({ name: 'x_total', help: 'x', labelNames: ['a', 'b'], registers: [] });
    expect(vec.withLabelValues('1', '2')).toBe(vec.withLabelValues('1', '2'));
    expect(vec.withLabelValues('1', '2')).not.toBe(vec.withLabelValues('12', ''));
  });

  it('refuse a wrong number of label values, a decreasing counter and a non-finite observation', () => {
    const counter = new CounterVec({ name: 'x_total', help: 'x', labelNames: ['a', 'b'], registers: [] });
    expect(() => counter.withLabelValues('only-one')).toThrow(/1 label values for 2 labels/);
    expect(() => counter.withLabelValues('1', '2').inc(-1)).toThrow(/cannot go down/);
    const histogram = new HistogramVec({ name: 'h', help: 'h', labelNames: [], buckets: [1], registers: [] });
    expect(() => histogram.withLabelValues().observe(Number.NaN)).toThrow(TypeError);
  });

  it('reset with the registry', async () => {
    const registry = new Registry();
    const vec = new GaugeVec({ name: 'g', help: 'g', labelNames: ['n'], registers: [registry] });
    vec.withLabelValues('a').set(3);
    registry.resetMetrics();
    expect((await vec.get()).values).toEqual([]);
    expect(registry.getSingleMetric('g')).toBe(vec);
  });
});
