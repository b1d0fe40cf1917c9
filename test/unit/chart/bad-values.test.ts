// Bad values fail at `helm template` (and so at `helm install`), with a message naming the value: the schema
// (values.schema.json) for a value wrong on its own, the templates for values wrong together.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chartTestSetup, DEVCLOUD_MODULE, helmTemplate } from '../../support/chart-model.ts';

const { scratch } = chartTestSetup('wasm-ccm-chart-bad-');

const provider = { name: 'devcloud', source: { module: true } };

describe('charts/wasm-ccm refuses bad values', () => {
  it('renders with the same flags when nothing is wrong (the cases below differ by the one bad value)', async () => {
    const result = await helmTemplate({ setFiles: DEVCLOUD_MODULE, setJson: { 'plugins.providers': [provider] } });
    expect(result.code, result.stderr).toBe(0);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an unknown kind', { kind: 'StatefulSet' }, /\/kind.*(DaemonSet|one of)/],
    ['replicas of 0', { replicas: 0 }, /\/replicas/],
    ['a misspelled value', { replica: 2 }, /replica\b/],
    [
      'a duration helm cannot pass on',
      { 'leaderElection.leaseDuration': '15 seconds' },
      /\/leaderElection\/leaseDuration/,
    ],
    [
      'a source with two kinds',
      { 'plugins.providers': [{ name: 'a', source: { module: true, file: '/x.wasm' } }] },
      /\/plugins\/providers\/0\/source/,
    ],
    ['an unknown provider field', { 'plugins.providers': [{ ...provider, allowedHost: ['x'] }] }, /allowedHost\b/],
    [
      'a memory cap over 4096 MB',
      { 'plugins.providers': [{ ...provider, limits: { memoryLimitMB: 9999 } }] },
      /\/plugins\/providers\/0\/limits\/memoryLimitMB/,
    ],
    [
      'an unknown capability',
      { 'plugins.providers': [{ ...provider, capabilities: ['teleport'] }] },
      /\/plugins\/providers\/0\/capabilities\/0/,
    ],
    [
      'a provider name that is not a DNS label',
      { 'plugins.providers': [{ ...provider, name: 'Dev_Cloud' }] },
      /\/plugins\/providers\/0\/name/,
    ],
    [
      'both credential kinds',
      { 'plugins.providers': [{ ...provider, credentials: { entries: [{}], existingSecret: 's' } }] },
      /\/plugins\/providers\/0\/credentials/,
    ],
    ['a port out of range', { securePort: 70000 }, /\/securePort/],
  ])('schema: %s', async (_what, setJson, message) => {
    const result = await helmTemplate({ setFiles: DEVCLOUD_MODULE, setJson });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
  });

  it('template: no module while a provider reads plugin.module', async () => {
    const result = await helmTemplate({});
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('plugin.module is empty, but plugins.providers[0] (devcloud) reads it');
  });

  it('template: a module over the 1 MiB a ConfigMap holds', async () => {
    const big = join(scratch, 'big.wasm');
    const header = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
    writeFileSync(big, Buffer.concat([header, Buffer.alloc(1024 * 1024 + 1 - header.length, 0x61)]));
    const result = await helmTemplate({ setFiles: { 'plugin.module': big } });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('plugin.module: the module is 1048577 bytes');
  });

  it('template: a module mangled by JSON (what --reuse-values renders from the release record)', async () => {
    const mangled = join(scratch, 'mangled.wasm');
    // Decoding as UTF-8 replaces every invalid sequence with U+FFFD, as Go's encoding/json does to Helm's record.
    writeFileSync(mangled, Buffer.from(readFileSync(DEVCLOUD_MODULE['plugin.module']).toString('utf8'), 'utf8'));
    const result = await helmTemplate({ setFiles: { 'plugin.module': mangled } });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('plugin.module holds U+FFFD replacement characters');
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'a flag the chart sets, in extraArgs',
      { extraArgs: { 'cluster-name': 'x' } },
      'extraArgs.cluster-name: the chart sets --cluster-name from the value clusterName',
    ],
    [
      'a TLS flag in extraArgs',
      { extraArgs: { 'tls-cert-file': '/x.crt' } },
      'the chart sets --tls-cert-file from the value tls.existingSecret',
    ],
    ['leader election off for a DaemonSet', { 'leaderElection.enabled': false }, 'leaderElection.enabled=false'],
    [
      'leader election off for two replicas',
      { kind: 'Deployment', replicas: 2, 'leaderElection.enabled': false },
      'leaderElection.enabled=false',
    ],
    ['no clusterCIDR while the route controller runs', { clusterCIDR: '' }, 'clusterCIDR is empty'],
  ])('template: %s', async (_what, setJson, message) => {
    const result = await helmTemplate({ setFiles: DEVCLOUD_MODULE, setJson });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
  });

  it('accepts what those checks allow: one replica without leader election, no clusterCIDR without routes', async () => {
    const single = await helmTemplate({
      setFiles: DEVCLOUD_MODULE,
      setJson: { kind: 'Deployment', replicas: 1, 'leaderElection.enabled': false },
    });
    expect(single.code, single.stderr).toBe(0);
    const noRoutes = await helmTemplate({
      setFiles: DEVCLOUD_MODULE,
      setJson: { clusterCIDR: '', controllers: ['*', '-route'] },
    });
    expect(noRoutes.code, noRoutes.stderr).toBe(0);
  });
});
