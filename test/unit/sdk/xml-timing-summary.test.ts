// What the XML time fuzzer commits (bench/results/fuzz-xml-time.json): per shape, the worst step ratio and the slowest
// reading at the last step reached; every series goes to the raw run (bench/results/raw/, not committed).
import { describe, expect, it } from 'vitest';
import { timingSummary } from '../../../lab/fuzz/xml/index.ts';

describe('timingSummary', () => {
  it('keeps the slowest reading at the last step reached, per shape, and no series', () => {
    const summary = timingSummary({
      series: [
        { shape: 'attributes', seed: 1, bytes: [1_000, 4_000, 16_000], ms: [10, 40, 170] },
        { shape: 'attributes', seed: 2, bytes: [1_000, 4_000, 16_001], ms: [10, 40, 190] },
        // Stopped a step early (a finding): slower, but not at the largest size.
        { shape: 'attributes', seed: 3, bytes: [1_000, 4_000], ms: [10, 400] },
        { shape: 'children', seed: 1, bytes: [1_000, 4_000, 16_000], ms: [12, 50, 210] },
      ],
      findings: ['attributes (seed 3, 4000 bytes): 400.0 ms, 40.0x the step before (4x the size)'],
      worstRatio: { attributes: 40, children: 4.2 },
      durationMs: 1_234,
    });
    expect(summary.largest).toEqual({
      attributes: { steps: 3, bytes: 16_001, ms: 190 },
      children: { steps: 3, bytes: 16_000, ms: 210 },
    });
    expect(summary.worstRatio).toEqual({ attributes: 40, children: 4.2 });
    expect(summary.findings).toHaveLength(1);
    expect(summary).not.toHaveProperty('series');
  });
});
