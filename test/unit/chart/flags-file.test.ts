// charts/wasm-ccm/files/flags.json, which the chart checks extraArgs against, is what scripts/gen-chart-flags.ts
// makes of the CCM's flag table: a flag added, removed or retyped in host/src/options fails here until the file is
// generated again.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CCM_FLAGS } from '../../../host/src/options/ccm-options.ts';
import { FlagError, parseFlags } from '../../../host/src/options/flagset.ts';
import { CHART_FLAGS_FILE, chartFlags } from '../../../scripts/gen-chart-flags.ts';

describe('charts/wasm-ccm/files/flags.json', () => {
  it('is what scripts/gen-chart-flags.ts makes of the flag table (run it after changing a flag)', () => {
    expect(readFileSync(CHART_FLAGS_FILE, 'utf8')).toBe(chartFlags());
  });

  it('names exactly the flags the CCM parses, each with its type', () => {
    const { flags } = JSON.parse(chartFlags()) as { flags: Record<string, string> };
    expect(Object.keys(flags).sort()).toEqual(Object.keys(CCM_FLAGS).sort());
    expect(flags['kube-api-qps']).toBe('float');
    expect(flags['leader-elect']).toBe('bool');
    expect(flags['node-monitor-period']).toBe('duration');
    expect(() => parseFlags(CCM_FLAGS, ['--not-a-flag=1'])).toThrow(FlagError);
  });
});
