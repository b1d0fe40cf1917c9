// `wasm-ccm plugin test` passes the vSphere plugin against vcsim (the host's `vsphere` credentials entry logs in), with
// the fixture beside the plugin (plugins/vsphere/conformance/fixture.yaml): node-3's VM powered off, node-4's destroyed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPluginTest } from '../../../host/src/cli/plugin-test.ts';
import { vsphereCredentialsFile } from '../../../lab/ccm/index.ts';
import { destroyVm, powerOff, type Vcsim } from '../../../lab/clouds/vsphere/index.ts';
import { vsphereConf } from '../../../lab/peers/index.ts';
import { builtPlugin } from '../../../lab/plugins/index.ts';
import { account, DATACENTER, startEstate, TOPOLOGY, VMS } from './support/estate.ts';

const FIXTURE = join(import.meta.dirname, '..', '..', '..', 'plugins', 'vsphere', 'conformance', 'fixture.yaml');
let vc: Vcsim;
let dir: string;

beforeAll(async () => {
  vc = await startEstate();
  await powerOff(vc, DATACENTER, VMS[2]!.name);
  await destroyVm(vc, DATACENTER, VMS[3]!.name);
  dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-vsphere-kit-'));
}, 60_000);

afterAll(async () => {
  await vc?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('wasm-ccm plugin test: vsphere', () => {
  it('passes every check of the declared capabilities', async () => {
    const cloudConfig = join(dir, 'vsphere.conf');
    writeFileSync(cloudConfig, vsphereConf(vc.server, TOPOLOGY));
    let out = '';
    let err = '';
    const code = await runPluginTest(
      [
        `--plugin=${builtPlugin('vsphere')}`,
        `--fixture=${FIXTURE}`,
        `--cloud-config=${cloudConfig}`,
        `--credentials=${vsphereCredentialsFile(dir, account(vc))}`,
        `--allowed-hosts=${vc.server}`,
      ],
      { stdout: (t) => (out += t), stderr: (t) => (err += t) },
    );
    expect(out).not.toMatch(/^FAIL/m);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(/^wasm-ccm plugin test: vsphere /);
    expect(out).toMatch(/checks: \d+ passed, 0 failed, \d+ skipped in [\d.]+ s — PASSED/);
    expect(out).toMatch(
      /^pass +instancesV2: instanceMetadata of running nodes +2 nodes; region\/zone region-a\/zone-a, region-a\/zone-b/m,
    );
    expect(out).toMatch(/^pass +zones: zone by providerID = by name = metadata /m);
    expect(out).toMatch(/^pass +instancesV2: instanceShutdown: running false, stopped true +5 nodes/m);
    expect(out).toMatch(/^pass +instancesV2: instanceMetadata of missing nodes: InstanceNotFound +2 nodes/m);
  });
});
