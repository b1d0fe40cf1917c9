// AssemblyScript 0.28's String#trim() stops early when a string's leading white space is longer than what follows
// (`"\n    ab".trim()` is `" ab"`: its loop compares the start with an end it shrinks at the same time). Nothing the
// SDK, the providers or the template compile may call it; `trimStart().trimEnd()` is right.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;

function assemblySources(): string[] {
  const tracked = execFileSync(
    'git',
    ['ls-files', 'plugins', 'plugin-sdk/assembly', 'packages/create-wasm-ccm-provider/template', 'lab/plugins'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  return tracked.split('\n').filter((f) => f.endsWith('.ts') && (f.includes('/assembly/') || f.includes('/template/')));
}

describe("AssemblyScript's String#trim", () => {
  it('is called by no AssemblyScript source of the repository', () => {
    const sources = assemblySources();
    expect(sources.length).toBeGreaterThan(50);
    const calls = sources.flatMap((file) =>
      readFileSync(`${ROOT}${file}`, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /\.trim\(\)/.test(line) && !line.trimStart().startsWith('//') ? [`${file}:${i + 1}`] : [],
        ),
    );
    expect(calls).toEqual([]);
  });
});
