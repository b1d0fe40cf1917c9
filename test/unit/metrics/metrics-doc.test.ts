// docs/metrics.md is what scripts/gen-metrics-doc.ts makes of the metric catalog, and the catalog holds every metric
// family host/src defines: a family added without a place in the catalog, or a catalog change without the page
// regenerated, fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { metricCatalog } from '../../../host/src/app/metric-catalog.ts';
import { METRICS_DOC, metricsReference } from '../../../scripts/gen-metrics-doc.ts';

const HOST_SRC = join(import.meta.dirname, '..', '..', '..', 'host', 'src');

/** Every `name: 'x'` given to a metric constructor in host/src (prom-client's or the metrics/vec.ts vectors). */
function definedMetricNames(): Set<string> {
  const names = new Set<string>();
  const files = readdirSync(HOST_SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const constructor =
    /new (?:Counter|Gauge|Histogram|Summary|CounterVec|GaugeVec|HistogramVec)\(\{\s*name: '([a-z_:]+)'/g;
  for (const file of files) {
    for (const match of readFileSync(join(HOST_SRC, file), 'utf8').matchAll(constructor)) names.add(match[1] as string);
  }
  return names;
}

describe('docs/metrics.md', () => {
  it('is what scripts/gen-metrics-doc.ts makes of the catalog (run it after changing a metric)', async () => {
    expect(readFileSync(METRICS_DOC, 'utf8')).toBe(metricsReference(await metricCatalog()));
  });

  it('lists every metric family host/src defines', async () => {
    const defined = definedMetricNames();
    // The scan itself works: it finds families of prom-client's classes and of the vectors.
    expect(defined).toContain('wasm_ccm_plugin_calls_total');
    expect(defined).toContain('wasm_ccm_cloud_api_requests_total');
    expect(defined.size).toBeGreaterThan(30);
    const catalogued = new Set((await metricCatalog()).map((m) => m.name));
    expect([...defined].filter((name) => !catalogued.has(name))).toEqual([]);
  });

  it('gives every family of the CCM a type, a help text and a stability level', async () => {
    for (const family of (await metricCatalog()).filter((m) => m.origin !== 'nodejs')) {
      expect(family.stability, family.name).toMatch(/^(ALPHA|BETA|STABLE)$/);
      expect(family.help.length, family.name).toBeGreaterThan(10);
      if (family.type === 'histogram') expect(family.buckets?.length, family.name).toBeGreaterThan(3);
    }
  });
});
