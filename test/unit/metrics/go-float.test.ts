// `le` labels as client_golang writes them: the expected texts are Go's strconv.FormatFloat(f, 'g', -1, 64) output.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { buildInfo, registerBuildInfo } from '../../../host/src/metrics/build-info.ts';
import { exponentialBuckets, goFloat } from '../../../host/src/metrics/go-float.ts';
import { HistogramVec } from '../../../host/src/metrics/vec.ts';

describe('goFloat', () => {
  it('prints numbers as Go does, exponent form below 1e-4 and from 1e6', () => {
    const cases: [number, string][] = [
      [1e-8, '1e-08'],
      [1.5e-5, '1.5e-05'],
      [0.0001, '0.0001'],
      [0.25, '0.25'],
      [1, '1'],
      [16384, '16384'],
      [999999, '999999'],
      [1e6, '1e+06'],
      [1234567, '1.234567e+06'],
      [1e21, '1e+21'],
      [1.2345678901234567e19, '1.2345678901234567e+19'],
      [Infinity, '+Inf'],
    ];
    for (const [f, text] of cases) expect(goFloat(f), String(f)).toBe(text);
  });

  it("rounds ExponentialBuckets(10e-9, 10, 10) as Go's float64 arithmetic does", () => {
    expect(exponentialBuckets(10e-9, 10, 10).map(goFloat)).toEqual([
      '1e-08',
      '1e-07',
      '1e-06',
      '9.999999999999999e-06',
      '9.999999999999999e-05',
      '0.001',
      '0.01',
      '0.1',
      '1',
      '10',
    ]);
  });

  it('writes a HistogramVec bucket `le` in Go form', async () => {
    const registry = new Registry();
    new HistogramVec({ name: 'h', help: 'h', labelNames: ['name'], buckets: [1e-8, 1], registers: [registry] })
      .withLabelValues('q')
      .observe(0.5);
    const text = await registry.metrics();
    expect(text).toContain('h_bucket{le="1e-08",name="q"} 0');
    expect(text).toContain('h_bucket{le="1",name="q"} 1');
  });
});

describe('kubernetes_build_info', () => {
  it("has upstream's labels, 1, with the package version", async () => {
    const registry = new Registry();
    registerBuildInfo(registry, buildInfo('0.1.0'));
    const [metric] = (await registry.getMetricsAsJSON()).filter((m) => m.name === 'kubernetes_build_info');
    expect(metric?.values).toEqual([
      {
        value: 1,
        labels: expect.objectContaining({ major: '0', minor: '1', git_version: 'v0.1.0', compiler: 'node' }),
      },
    ]);
    expect(Object.keys(metric?.values[0]?.labels ?? {}).sort()).toEqual(
      [
        'build_date',
        'compiler',
        'git_commit',
        'git_tree_state',
        'git_version',
        'go_version',
        'major',
        'minor',
        'platform',
      ].sort(),
    );
    expect(metric?.help).toMatch(/^\[BETA\] A metric with a constant '1' value/);
  });
});
