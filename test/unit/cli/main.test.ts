// The wasm-ccm entry point: exit codes and the `plugin test` subcommand, run as the real process.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { CCM_MAIN } from '../../../lab/ccm/index.ts';

function run(args: string[]) {
  return spawnSync(process.execPath, [CCM_MAIN, ...args], { encoding: 'utf8', timeout: 30_000 });
}

describe('wasm-ccm command', () => {
  it('prints help and version, exit 0', () => {
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--cloud-provider');
    expect(help.stdout).toContain('wasm-ccm plugin test --plugin=<file.wasm> --fixture=<file>   run a provider plugin');
    const version = run(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^wasm-ccm \d+\.\d+\.\d+/);
    // component-base's --version=raw: the version.Info fields, in Go's %#v form.
    const raw = run(['--version=raw']);
    expect(raw.status).toBe(0);
    expect(raw.stdout).toMatch(
      /^version\.Info\{Major:"\d+", Minor:"\d+", .*GitVersion:"v\d+\.\d+\.\d+", .*Platform:"[a-z]+\/[a-z0-9]+"\}\n$/,
    );
  });

  it('exits 2 naming the flag for a bad command line or kubeconfig', () => {
    const unknown = run(['--cloud-provider=x', '--no-such-flag']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toBe('wasm-ccm: --no-such-flag: unknown flag (see --help)\n');
    const kubeconfig = join(tmpdir(), `wasm-ccm-bad-kubeconfig-${process.pid}`);
    writeFileSync(kubeconfig, 'this: [is not a kubeconfig');
    const bad = run(['--cloud-provider=x', `--kubeconfig=${kubeconfig}`]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--kubeconfig/);
  });

  it('dispatches `plugin test` to the conformance kit', () => {
    const help = run(['plugin', 'test', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('wasm-ccm plugin test --plugin=<file.wasm> --fixture=');
    const missing = run(['plugin', 'test']);
    expect(missing.status).toBe(2);
    expect(run(['plugin', 'bogus']).status).toBe(2);
  });
});
