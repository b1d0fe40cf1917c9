// `wasm-ccm plugin test` passes the OpenStack plugin against the lab OpenStack with the fixture beside the plugin
// (plugins/openstack/conformance/fixture.yaml), the host logging in to Keystone from a `keystone` credentials entry,
// and leaves no load balancer and no route behind.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPluginTest } from '../../../host/src/cli/plugin-test.ts';
import type { LabOpenStack } from '../../../lab/clouds/openstack/index.ts';
import { builtPlugin, keystoneEntry } from '../../../lab/plugins/index.ts';
import { type Estate, keystoneLogin, makeEstate } from './support/estate.ts';
import { LAB_START_TIMEOUT_MS, labOpenStack } from './support/lab.ts';

const FIXTURE = new URL('../../../plugins/openstack/conformance/fixture.yaml', import.meta.url).pathname;
// The estate the fixture describes.
const ADDRESSES = { 'node-a': '192.168.77.10', 'node-b': '192.168.77.11', 'node-c': '192.168.77.12' };

let stack: LabOpenStack;
let estate: Estate;
let dir: string;

beforeAll(async () => {
  stack = await labOpenStack();
  estate = await makeEstate(stack, 'e2e-oskit', '192.168.77.0/24', ['node-a', 'node-b'], ['node-c'], ADDRESSES);
  dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-openstack-kit-'));
  writeFileSync(
    join(dir, 'credentials.json'),
    JSON.stringify({ credentials: [keystoneEntry(dir, keystoneLogin(estate.project))] }),
  );
  // internal-lb: Octavia's noop network driver makes no VIP port a floating IP could go on; subnet-id: the fixture's
  // nodes carry no providerID to find the subnet by; the waits of a busy machine's noop Octavia (README).
  writeFileSync(
    join(dir, 'cloud.conf'),
    [
      '[Global]',
      'region = RegionOne',
      '[LoadBalancer]',
      'internal-lb = true',
      `subnet-id = ${estate.network.subnetId}`,
      '[Route]',
      `router-id = ${estate.network.routerId}`,
      '[Environment]',
      'OCCM_WAIT_LB_ACTIVE_STEPS = 16',
    ].join('\n'),
  );
}, LAB_START_TIMEOUT_MS);

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('wasm-ccm plugin test: openstack', () => {
  it('passes every check of the declared capabilities and leaves Octavia and the router clean', async () => {
    let out = '';
    let err = '';
    const code = await runPluginTest(
      [
        `--plugin=${builtPlugin('openstack')}`,
        `--fixture=${FIXTURE}`,
        `--cloud-config=${join(dir, 'cloud.conf')}`,
        `--credentials=${join(dir, 'credentials.json')}`,
        '--timeout=100000',
      ],
      { stdout: (t) => (out += t), stderr: (t) => (err += t) },
    );
    expect(out).not.toMatch(/^FAIL/m);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(/^wasm-ccm plugin test: openstack 1\.0\.0/);
    expect(out).toMatch(/checks: \d+ passed, 0 failed, 8 skipped in [\d.]+ s — PASSED/);
    // Skipped for the reasons the fixture gives, which the report prints.
    expect(out).toMatch(
      /^skip \(not probed\) +loadBalancer: backends after ensure: .* Octavia keeps members per pool/m,
    );
    expect(out).toMatch(/^skip \(not probed\) +loadBalancer: cloud: none left after delete +the lab's Octavia/m);
    expect(out).toMatch(/^not probed \(loadBalancers\): the lab's Octavia listens on a port chosen at run time/m);
    expect(out).toMatch(/^pass +loadBalancer: update with a changed node set changes the cloud/m);
    expect(out).toMatch(/^pass +routes: listRoutes shows only the cluster's routes/m);
    const client = estate.project.client;
    expect(
      (await client.get<{ loadbalancers: unknown[] }>('load-balancer', '/v2/lbaas/loadbalancers')).loadbalancers,
    ).toEqual([]);
    const router = await client.get<{ router: { routes: unknown[] } }>(
      'network',
      `/v2.0/routers/${estate.network.routerId}`,
    );
    expect(router.router.routes).toEqual([]);
  }, 600_000);
});
