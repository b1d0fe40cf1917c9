// `wasm-ccm dev` as the package's bin entry runs it: bad input exits 2 naming the problem, before any cluster starts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDevArgs } from '../../../packages/wasm-ccm/src/dev/index.ts';

const CLI = fileURLToPath(new URL('../../../packages/wasm-ccm/src/cli.ts', import.meta.url));

function dev(args: string[]) {
  return spawnSync(process.execPath, [CLI, 'dev', ...args], { encoding: 'utf8', timeout: 60_000 });
}

describe('wasm-ccm dev', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-dev-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the kit’s plugin flags and --watch', () => {
    expect(
      parseDevArgs(['--plugin=p.wasm', '--fixture=f.yaml', '--allowed-hosts=a:1,b', '--allowed-hosts=c', '--watch']),
    ).toEqual({
      plugin: 'p.wasm',
      fixture: 'f.yaml',
      cloudConfig: undefined,
      credentials: undefined,
      allowedHosts: ['a:1', 'b', 'c'],
      watch: true,
    });
    expect(parseDevArgs(['-h'])).toBe('help');
  });

  it('prints its usage (exit 0), and exits 2 naming a missing or unknown flag', () => {
    const help = dev(['--help']);
    expect(help.stdout).toContain('Usage: wasm-ccm dev --plugin=<file.wasm> --fixture=<file.json|yaml>');
    expect(help.status).toBe(0);
    const missing = dev(['--fixture=f.yaml']);
    expect(missing.stderr).toContain('wasm-ccm dev: --plugin is required');
    expect(missing.status).toBe(2);
    const unknown = dev(['--plugin=p', '--fixture=f', '--bogus']);
    expect(unknown.stderr).toContain("wasm-ccm dev: Unknown option '--bogus'");
    expect(unknown.status).toBe(2);
  }, 120_000); // each run loads the CCM's plugin runtime: seconds apiece on a busy machine

  it('exits 2 naming an unreadable fixture or plugin, starting nothing', () => {
    const noFixture = dev(['--plugin=p.wasm', `--fixture=${join(dir, 'none.yaml')}`]);
    expect(noFixture.stderr).toContain(`cannot read fixture ${join(dir, 'none.yaml')}`);
    expect(noFixture.stdout).not.toContain('stopping');
    expect(noFixture.status).toBe(2);
    const fixture = join(dir, 'fixture.yaml');
    writeFileSync(fixture, 'clusterName: c\nnodes: { running: [{ name: a }], stopped: [], missing: [] }\n');
    const noPlugin = dev([`--plugin=${join(dir, 'none.wasm')}`, `--fixture=${fixture}`]);
    expect(noPlugin.stderr).toContain(`cannot read plugin ${join(dir, 'none.wasm')}`);
    expect(noPlugin.status).toBe(2);
    writeFileSync(fixture, 'nodes: {}\n');
    const badFixture = dev(['--plugin=p.wasm', `--fixture=${fixture}`]);
    expect(badFixture.stderr).toMatch(/wasm-ccm dev: .*nodes/);
    expect(badFixture.status).toBe(2);
  }, 120_000);
});
