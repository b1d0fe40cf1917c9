// The preamble every packed bin starts with: it runs on an older Node.js far enough to name the version it needs and
// exit 1, and on a supported one loads the entry and exits with its status. The machine's own Node.js (/usr/bin/node,
// Node 20 here; WASM_CCM_OLD_NODE elsewhere) is the older one. test/e2e/vendor/workflow.test.ts runs the real bins.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { minimumNode, writeBinShim } from '../../../scripts/pack/bin-shim.ts';

const OLD_NODE = process.env.WASM_CCM_OLD_NODE ?? '/usr/bin/node';
const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-bin-shim-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function exec(node: string, file: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(node, [file, ...args], { env: { PATH: process.env.PATH ?? '' } }, (error, out, err) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, out, err });
    });
  });
}

/** A package with an ES module entry (syntax Node 20 parses, exports it could not run) and its bin. */
function fakePackage(name: string, engines: string, run?: string): string {
  const root = join(dir, name);
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name, type: 'module' }));
  writeFileSync(
    join(root, 'dist', 'main.js'),
    run
      ? `export function ${run}(args, write) { write('args ' + args.join(' ')); return Number(args[0] ?? 0); }\n`
      : `console.log('ran itself'); process.exitCode = 7;\n`,
  );
  writeBinShim(root, `bin/${name}.cjs`, { command: name, engines, entry: 'dist/main.js', run });
  return join(root, 'bin', `${name}.cjs`);
}

describe('bin preamble', () => {
  it('reads engines >=X and >=X.Y, and refuses what a bin cannot check', () => {
    expect(minimumNode('>=24')).toEqual([24, 0]);
    expect(minimumNode('>= 22.18')).toEqual([22, 18]);
    expect(() => minimumNode('^24 || ^26')).toThrow('engines.node "^24 || ^26" is not ">=<major>[.<minor>]"');
  });

  it('exits 1 on an older Node.js, naming the version needed and the one running', async () => {
    const bin = fakePackage('acme-tool', '>=22.18', 'main');
    const version = await exec(OLD_NODE, '-p', ['process.versions.node']).then((r) => r.out.trim());
    const [major = 0, minor = 0] = version.split('.').map(Number);
    expect(major * 100 + minor, `${OLD_NODE} is Node.js ${version}; set WASM_CCM_OLD_NODE`).toBeLessThan(2218);
    const got = await exec(OLD_NODE, bin, ['3']);
    expect(got).toEqual({
      code: 1,
      out: '',
      err: `acme-tool: needs Node.js >=22.18; this is Node.js ${version} (${OLD_NODE})\n`,
    });
  });

  it('on a supported Node.js calls the entry export with the arguments and exits with its status', async () => {
    const bin = fakePackage('acme-run', '>=22.18', 'main');
    expect(await exec(process.execPath, bin, ['3', 'x'])).toEqual({ code: 3, out: 'args 3 x\n', err: '' });
  });

  it('on a supported Node.js loads an entry that runs itself, keeping its exit status', async () => {
    const bin = fakePackage('acme-self', '>=24');
    expect(await exec(process.execPath, bin, [])).toEqual({ code: 7, out: 'ran itself\n', err: '' });
  });
});
