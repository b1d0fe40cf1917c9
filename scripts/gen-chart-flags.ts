// Writes charts/wasm-ccm/files/flags.json, every flag of the CCM with its type, the values of the flags that take
// one of a few, and the feature gates, from the CCM's own definitions (host/src/options, host/src/log), so that the
// chart refuses an `extraArgs` flag the CCM does not know, or a value it would refuse, at `helm install` rather than
// in a crash-looping pod. test/unit/chart/flags-file.test.ts fails when the file
// is stale.
//   node scripts/gen-chart-flags.ts
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CCM_FLAGS } from '../host/src/options/ccm-options.ts';
import { parseFeatureGates } from '../host/src/options/feature-gates.ts';
import type { FlagType } from '../host/src/options/flagset.ts';
import { LOG_FORMATS } from '../host/src/log/klog.ts';

export const CHART_FLAGS_FILE = join(
  fileURLToPath(new URL('..', import.meta.url)),
  'charts',
  'wasm-ccm',
  'files',
  'flags.json',
);

/** The file's text: `{"flags": {name: type}, "values": {name: [value]}, "featureGates": [name]}`, sorted. */
export function chartFlags(): string {
  const flags: Record<string, FlagType> = {};
  for (const name of Object.keys(CCM_FLAGS).sort()) {
    flags[name] = CCM_FLAGS[name as keyof typeof CCM_FLAGS].type;
  }
  const values = { 'logging-format': [...LOG_FORMATS] };
  // Every gate the CCM knows is a key of what it parses from no entries (each at its default).
  const featureGates = Object.keys(parseFeatureGates([])).sort();
  const file = { generatedBy: 'node scripts/gen-chart-flags.ts (from host/src/options)', flags, values, featureGates };
  return `${JSON.stringify(file, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(CHART_FLAGS_FILE, chartFlags());
