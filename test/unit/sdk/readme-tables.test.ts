// plugin-sdk/README.md's capability table names every method of the ABI with its capability, request class and out
// class, as abi/v1.json defines them: a method added to the ABI, or a class renamed, makes this fail until the
// README says so.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SDK_DIR } from '../../../plugin-sdk/tools/compile.ts';

interface AbiMethod {
  name: string;
  capability: string | null;
  request: string;
  response: string;
}

it('the capability table lists each method with its request and response classes, as the ABI has them', () => {
  const abi = JSON.parse(readFileSync(join(SDK_DIR, 'abi', 'v1.json'), 'utf8')) as { methods: AbiMethod[] };
  const readme = readFileSync(join(SDK_DIR, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Capabilities and their methods'), readme.indexOf('\n## Errors'));
  const rows = section
    .split('\n')
    .filter((l) => /^\| (\(always\)|`\w+`) +\| `/.test(l))
    .map((l) => {
      const cells = l.split('|').map((c) => c.trim());
      const code = (cell: string | undefined): string => /`([^`]+)`/.exec(cell ?? '')?.[1] ?? '';
      const capability = cells[1] === '(always)' ? null : code(cells[1]);
      return { name: code(cells[2]), capability, request: code(cells[3]), response: code(cells[4]) };
    });
  const expected = abi.methods
    .filter((m) => m.name !== 'describe')
    .map(({ name, capability, request, response }) => ({ name, capability, request, response }));
  expect(rows).toEqual(expected);
});
