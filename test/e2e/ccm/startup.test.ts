// Bad input at start of a real wasm-ccm process: exit 2 naming the flag for a bad command line, exit 1 with a clear
// message for a plugin that cannot run or does not match --cloud-provider, and never a controller started.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';
import { CCMProcess, devcloudPluginArgs } from '../../../lab/ccm/index.ts';
import { freePort } from '../../../lab/process/index.ts';
import {
  adminKubeConfig,
  uniqueName,
  applyManifests,
  ccmIdentity,
  loadManifests,
} from '../../../lab/controlplane/index.ts';

interface Outcome {
  code: number | null;
  output: string;
  ms: number;
}

describe('wasm-ccm refuses bad input at start', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  let token = '';
  let cloud: Devcloud;

  beforeAll(async () => {
    await applyManifests(admin, loadManifests('rbac.yaml'));
    token = (await ccmIdentity(info, admin)).token;
    cloud = await startDevcloud();
  });
  afterAll(() => cloud?.stop());

  async function run(args: string[]): Promise<Outcome> {
    const started = Date.now();
    const ccm = new CCMProcess({ info, token, args });
    const timer = setTimeout(() => ccm.process.killNow(), 30_000);
    const code = await ccm.process.exited;
    clearTimeout(timer);
    expect(ccm.logs().some((r) => r.msg === 'caches synced; starting controllers')).toBe(false);
    return { code, output: ccm.process.tail(), ms: Date.now() - started };
  }

  it('exits 2 naming an unknown flag, and a flag with an invalid value', async () => {
    const unknown = await run(['--cloud-provider=devcloud', '--no-such-flag=1']);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain('--no-such-flag: unknown flag');

    const badValue = await run(['--cloud-provider=devcloud', '--node-monitor-period=soon']);
    expect(badValue.code).toBe(2);
    expect(badValue.output).toContain('--node-monitor-period');

    const missing = await run([]);
    expect(missing.code).toBe(2);
    expect(missing.output).toContain('--cloud-provider: required');
  });

  it('exits 2 naming the flag for plugin flags the configuration file would refuse, and for a bad kubeconfig user', async () => {
    for (const [flag, message] of [
      ['--plugin-pool-size=65', '--plugin-pool-size: must be from 1 to 64, got 65'],
      ['--plugin-memory-limit-mb=0', '--plugin-memory-limit-mb: must be from 1 to 4096, got 0'],
      ['--plugin-allowed-hosts=https://api.example/', "--plugin-allowed-hosts: allowed host 'https://api.example/'"],
    ] as const) {
      const outcome = await run([...devcloudPluginArgs(info.dir, cloud, 'bad-flag'), flag]);
      expect(outcome.code).toBe(2);
      expect(outcome.output).toContain(message);
    }
    const kubeconfig = join(info.dir, `${uniqueName('as-groups')}.kubeconfig`);
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        clusters: [{ name: 'c', cluster: { server: info.server } }],
        users: [{ name: 'u', user: { token, 'as-groups': ['system:masters'] } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const impersonating = await run([...devcloudPluginArgs(info.dir, cloud, 'bad-user'), `--kubeconfig=${kubeconfig}`]);
    expect(impersonating.code).toBe(2);
    expect(impersonating.output).toContain('as-groups: needs "as"');
  });

  it('exits 1 with a clear message when the plugin file is not WebAssembly', async () => {
    const notWasm = join(info.dir, `${uniqueName('not-wasm')}.wasm`);
    writeFileSync(notWasm, '#!/bin/sh\necho this is not a wasm module\n');
    const outcome = await run(['--cloud-provider=devcloud', `--plugin=${notWasm}`]);
    expect(outcome.code).toBe(1);
    expect(outcome.output).toMatch(/wasm-ccm: .*(not a WebAssembly module|magic)/i);
    expect(outcome.output).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });

  it('exits 1 naming both names when --cloud-provider does not match the plugin', async () => {
    // devcloudPluginArgs gives --cloud-provider=devcloud first; the later flag wins.
    const outcome = await run([...devcloudPluginArgs(info.dir, cloud, 'startup'), '--cloud-provider=aws']);
    expect(outcome.code).toBe(1);
    expect(outcome.output).toContain('--cloud-provider: "aws" does not match the plugin\'s provider name "devcloud"');
  });

  it('stops at once (exit 0) on SIGTERM while still waiting for an apiserver that does not answer', async () => {
    const nowhere = { ...info, server: `https://127.0.0.1:${await freePort()}` };
    const ccm = new CCMProcess({ info: nowhere, token, args: devcloudPluginArgs(info.dir, cloud, 'early-term') });
    await ccm.waitForLog('the first apiserver retry', (r) => r.msg === 'waiting for the apiserver');
    const termAt = Date.now();
    const code = await ccm.stop();
    expect(code).toBe(0);
    // Before the fix the process kept retrying for up to two minutes after SIGTERM.
    expect(Date.now() - termAt).toBeLessThan(3_000);
  });
});
