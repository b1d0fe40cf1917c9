// charts/wasm-ccm/README.md documents every value: its tables are exactly what scripts/gen-chart-readme.ts makes of
// values.schema.json and values.yaml, every value of values.yaml has a row, and the schema knows exactly the
// provider fields the CCM takes (host/src/plugin/config/parse.ts), with the CCM's capabilities as its enum.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../../host/src/abi/index.ts';
import { parsePluginConfig } from '../../../host/src/plugin/config/parse.ts';
import {
  chartSchema,
  chartValues,
  HELM_ONLY_KEYS,
  README_PATH,
  regeneratedReadme,
  valueRows,
} from '../../../scripts/gen-chart-readme.ts';

/** Dotted paths of values.yaml down to the depth the schema describes. */
function valuePaths(values: Record<string, unknown>, schema = chartSchema(), prefix = ''): string[] {
  return Object.entries(values).flatMap(([key, value]) => {
    const node = schema.properties?.[key];
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (node?.properties && node.type === 'object' && value !== null && typeof value === 'object') {
      return valuePaths(value as Record<string, unknown>, node, path);
    }
    return [path];
  });
}

describe('charts/wasm-ccm/README.md', () => {
  it('holds the generated tables as they are now (run `node scripts/gen-chart-readme.ts` after changing values)', () => {
    const readme = readFileSync(README_PATH, 'utf8');
    expect(readme).toBe(regeneratedReadme(readme));
  });

  it('would notice a value the table lacks', () => {
    const readme = readFileSync(README_PATH, 'utf8');
    const stale = readme.replace(/^\| `clusterName` .*\n/m, '');
    expect(stale).not.toBe(readme);
    expect(regeneratedReadme(stale)).not.toBe(stale);
  });

  it('has a row for every value of values.yaml, and a value in values.yaml for every row', () => {
    const rows = valueRows().map((r) => r.path);
    expect(new Set(rows).size).toBe(rows.length);
    expect(valuePaths(chartValues()).sort()).toEqual([...rows].sort());
    for (const row of valueRows()) expect(row.description, row.path).not.toBe('');
  });

  it('describes every top-level key the schema allows (Helm’s own aside)', () => {
    const keys = Object.keys(chartSchema().properties ?? {}).filter((k) => !HELM_ONLY_KEYS.has(k));
    expect(keys.sort()).toEqual(Object.keys(chartValues()).sort());
  });

  it('lists the CCM’s capabilities in the provider schema', () => {
    const capabilities = chartSchema().definitions?.provider?.properties?.capabilities?.items?.enum;
    expect([...(capabilities ?? [])].sort()).toEqual(Object.keys(CAPABILITIES).sort());
  });

  it('knows exactly the provider fields the CCM takes (as the CCM lists them when refusing an unknown one)', () => {
    const config = 'providers:\n  - {name: p, source: {file: /dev/null}, notAField: 1}\n';
    let message = '';
    try {
      parsePluginConfig(config, { baseDir: '/', defaults: { callTimeoutMs: 1000, memoryLimitMB: 64, poolSize: 1 } });
    } catch (err) {
      message = (err as Error).message;
    }
    const known = /unknown field \(known: ([^)]+)\)/.exec(message)?.[1]?.split(', ') ?? [];
    expect(known.length, message).toBeGreaterThan(5);
    expect(Object.keys(chartSchema().definitions?.provider?.properties ?? {}).sort()).toEqual(known.sort());
  });
});
