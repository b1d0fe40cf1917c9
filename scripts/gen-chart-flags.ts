// Writes charts/wasm-ccm/files/flags.json, every flag of the CCM with its type, from the flag table itself
// (host/src/options), so that the chart refuses an `extraArgs` flag the CCM does not know, or a value of the wrong
// type, at `helm install` rather than in a crash-looping pod. test/unit/chart/flags-file.test.ts fails when the file
// is stale.
//   node scripts/gen-chart-flags.ts
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CCM_FLAGS } from '../host/src/options/ccm-options.ts';
import type { FlagType } from '../host/src/options/flagset.ts';

export const CHART_FLAGS_FILE = join(
  fileURLToPath(new URL('..', import.meta.url)),
  'charts',
  'wasm-ccm',
  'files',
  'flags.json',
);

/** The file's text: `{"flags": {name: type}}`, names sorted, one per line. */
export function chartFlags(): string {
  const flags: Record<string, FlagType> = {};
  for (const name of Object.keys(CCM_FLAGS).sort()) {
    flags[name] = CCM_FLAGS[name as keyof typeof CCM_FLAGS].type;
  }
  const file = { generatedBy: 'node scripts/gen-chart-flags.ts (from host/src/options)', flags };
  return `${JSON.stringify(file, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(CHART_FLAGS_FILE, chartFlags());
