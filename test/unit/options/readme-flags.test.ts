// The README's flag table is documentation users rely on: it lists every flag of the cloud-controller-manager that
// wasm-ccm implements and its own, with their real defaults; docs/flags.md, the whole reference, is generated from
// the flag table and must match it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CCM_FLAGS } from '../../../host/src/options/ccm-options.ts';
import { formatDuration } from '../../../host/src/options/duration.ts';
import { UPSTREAM_FLAGS } from '../../../host/src/options/upstream-flags.ts';
import { FLAGS_DOC, flagsReference } from '../../../scripts/gen-flags-doc.ts';

const readme = readFileSync(join(import.meta.dirname, '..', '..', '..', 'README.md'), 'utf8');

describe('README flags table', () => {
  const documented = Object.entries(CCM_FLAGS).filter(([name]) => !Object.hasOwn(UPSTREAM_FLAGS, name));
  it.each(documented)('documents --%s with its default', (name, spec) => {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`--${name}\` |`));
    expect(row, `README has no row for --${name}`).toBeDefined();
    const s = spec as { type: string; default: unknown };
    const def =
      s.type === 'duration'
        ? formatDuration(s.default as number)
        : s.type === 'stringList'
          ? (s.default as string[]).join(',')
          : String(s.default);
    const cell = row!.split('|')[2]!.trim();
    expect(cell).toBe(def === '' ? '' : `\`${def}\``);
  });
});

describe('docs/flags.md', () => {
  it('is what scripts/gen-flags-doc.ts makes of the flag table (run it after changing a flag)', () => {
    expect(readFileSync(FLAGS_DOC, 'utf8')).toBe(flagsReference());
  });
});
