// The flags users read about must be true: docs/flags.md, the whole reference, is generated from the flag table and
// must match it; the README's table of the flags operators set most must give each one's real default.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CCM_FLAGS } from '../../../host/src/options/ccm-options.ts';
import { formatDuration } from '../../../host/src/util/duration.ts';
import { FLAGS_DOC, flagsReference } from '../../../scripts/gen-flags-doc.ts';

const readme = readFileSync(join(import.meta.dirname, '..', '..', '..', 'README.md'), 'utf8');
const rows = readme.split('\n').filter((line) => /^\| `--[a-z0-9-]+` \|/.test(line));

describe("README's flag table", () => {
  it('links the whole reference and lists the common flags', () => {
    expect(readme).toContain('](docs/flags.md)');
    expect(rows.length).toBeGreaterThanOrEqual(10);
  });

  it.each(rows.map((row) => [/^\| `--([a-z0-9-]+)` \|/.exec(row)![1]!, row]))(
    'gives --%s its real default',
    (name, row) => {
      const spec = CCM_FLAGS[name as keyof typeof CCM_FLAGS] as { type: string; default: unknown } | undefined;
      expect(spec, `README names --${name}, which is not a flag`).toBeDefined();
      const def =
        spec!.type === 'duration'
          ? formatDuration(spec!.default as number)
          : spec!.type === 'stringList'
            ? (spec!.default as string[]).join(',')
            : String(spec!.default);
      const cell = row.split('|')[2]!.trim();
      expect(cell).toBe(def === '' ? '' : `\`${def}\``);
    },
  );
});

describe('docs/flags.md', () => {
  it('is what scripts/gen-flags-doc.ts makes of the flag table (run it after changing a flag)', () => {
    expect(readFileSync(FLAGS_DOC, 'utf8')).toBe(flagsReference());
  });
});
