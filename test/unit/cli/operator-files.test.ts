// Files an operator names, given as the real process gets them: a device, a FIFO, a directory or a YAML alias bomb
// is a bad command line (exit 2, the flag or the configuration field named), found at once, never read or waited on.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CCM_MAIN } from '../../../lab/ccm/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-operator-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fifo = join(dir, 'fifo');
execFileSync('mkfifo', [fifo]);
const zeroLink = join(dir, 'zero-link');
symlinkSync('/dev/zero', zeroLink);
const wasm = join(dir, 'p.wasm');
writeFileSync(wasm, Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0));

// Nine levels of ten aliases: 80 aliases (under js-yaml's count), 10^9 strings once written out as JSON.
function billionLaughs(): string {
  let text = `      a0: &a0 [${Array(10).fill('lol').join(', ')}]\n`;
  for (let i = 1; i < 9; i++)
    text += `      a${i}: &a${i} [${Array(10)
      .fill(`*a${i - 1}`)
      .join(', ')}]\n`;
  return text;
}

function pluginConfig(provider: string): string {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, `providers:\n  - name: p\n${provider}`);
  return `--plugin-config=${path}`;
}

const module = `    source: {file: ${wasm}}\n`;

interface Exit {
  code: number | null;
  stderr: string;
  ms: number;
}

function run(args: string[]): Promise<Exit> {
  const started = performance.now();
  return new Promise((resolve) => {
    // The timeout ends a run that hangs (a FIFO opened for reading waits for a writer forever).
    execFile(process.execPath, [CCM_MAIN, '--cloud-provider=p', ...args], { timeout: 30_000 }, (err, _out, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
      resolve({ code, stderr, ms: performance.now() - started });
    });
  });
}

// What used to hang (a FIFO opened for reading waits for a writer), read a device to a gigabyte, or exit 1 with a
// RangeError or TypeError (aliases written out as JSON) runs as the real process; the other kinds of file are in
// test/unit/options/ccm-options.test.ts.
describe('wasm-ccm refuses operator files that are not regular files, or alias bombs, with exit 2', () => {
  it.each<[string, string[], RegExp]>([
    ['/dev/zero as --cloud-config', ['--cloud-config=/dev/zero'], /^wasm-ccm: --cloud-config: .*character device/],
    ['a symlink to /dev/zero as --cloud-config', [`--cloud-config=${zeroLink}`], /^wasm-ccm: --cloud-config: .*device/],
    [
      'a FIFO as --cloud-config',
      [`--cloud-config=${fifo}`],
      /^wasm-ccm: --cloud-config: .*\(not a regular file \(a FIFO\)\)/,
    ],
    ['a FIFO as the module (--plugin)', [`--plugin=${fifo}`], /^wasm-ccm: --plugin: .*a FIFO/],
    [
      'a FIFO as a provider source file',
      [pluginConfig(`    source: {file: ${fifo}}\n`)],
      /^wasm-ccm: --plugin-config: providers\[0\]\.source\.file: .*a FIFO/,
    ],
    [
      'a FIFO as a cloudConfigFile',
      [pluginConfig(`${module}    cloudConfigFile: ${fifo}\n`)],
      /^wasm-ccm: --plugin-config: providers\[0\]\.cloudConfigFile: .*a FIFO/,
    ],
    [
      'a billion-laughs cloudConfig',
      [pluginConfig(`${module}    cloudConfig:\n${billionLaughs()}`)],
      /^wasm-ccm: --plugin-config: providers\[0\]\.cloudConfig\.a\d(\[\d\])+: YAML aliases expand the document past/,
    ],
    [
      'a cloudConfig alias inside itself',
      [pluginConfig(`${module}    cloudConfig: &c\n      self: *c\n`)],
      /^wasm-ccm: --plugin-config: providers\[0\]\.cloudConfig\.self: a YAML alias inside the node it names/,
    ],
  ])('%s', async (_what, args, message) => {
    const exit = await run(args);
    expect(exit.stderr).toMatch(message);
    expect(exit.code).toBe(2);
    // Most of it is Node's start and loading the TypeScript sources; the alias bomb alone ran 37 s before exiting 1.
    expect(exit.ms).toBeLessThan(15_000);
  });
});
