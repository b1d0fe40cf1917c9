// The README's flag table is documentation users rely on: it must list every flag with its real default.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CCM_FLAGS } from '../../../host/src/options/ccm-options.ts';
import { formatDuration } from '../../../host/src/options/duration.ts';

const readme = readFileSync(join(import.meta.dirname, '..', '..', '..', 'README.md'), 'utf8');

describe('README flags table', () => {
  it.each(Object.entries(CCM_FLAGS))('documents --%s with its default', (name, spec) => {
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
