// The vSphere fixture (lab/clouds/vsphere): vcsim starts with its credentials checked and a test CA's certificate,
// takes a seeded inventory (datacenter, cluster, hosts, VMs with a UUID, guest IP and host name, zone and region
// tags), answers what upstream's CCM reads, and stop() leaves no process behind.
import { existsSync } from 'node:fs';
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCluster,
  addDatacenter,
  addHost,
  attachedTags,
  attachTag,
  clusterPath,
  createTag,
  createTagCategory,
  createVm,
  destroyVm,
  hostPath,
  powerOff,
  readVm,
  startVcsim,
  type Vcsim,
} from '../../../lab/clouds/vsphere/index.ts';

const DC = 'dc-1';
const UUID = '4210e0b3-7c52-b6bc-7b8b-1f0f8f1d3a11';
let vc: Vcsim;

/** POST /rest/com/vmware/cis/session with basic auth, trusting the fixture's CA (or not). */
function restLogin(password: string, ca?: string): Promise<number> {
  const auth = Buffer.from(`${vc.username}:${password}`).toString('base64');
  return new Promise((resolve, reject) => {
    const req = request(
      `https://${vc.server}/rest/com/vmware/cis/session`,
      { method: 'POST', headers: { authorization: `Basic ${auth}` }, ...(ca !== undefined ? { ca } : {}) },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  vc = await startVcsim({ password: 'p&<"\'>s3cret' });
});

afterAll(async () => {
  await vc?.stop();
});

describe('vcsim fixture', () => {
  it('serves TLS its CA verifies, and checks the password', async () => {
    expect(await restLogin(vc.password, vc.ca.caPem)).toBe(200);
    expect(await restLogin('wrong', vc.ca.caPem)).toBe(401);
    // Without the CA the certificate is not trusted: the fixture's clients trust it by the CA file.
    await expect(restLogin(vc.password)).rejects.toThrow(/self-signed|unable to verify|issuer/i);
  });

  it('seeds datacenter, cluster, hosts, VMs and tags, and reads them back', async () => {
    await addDatacenter(vc, DC);
    await addCluster(vc, DC, 'cluster-1');
    const host1 = { datacenter: DC, cluster: 'cluster-1', name: 'esx-1.example' };
    const standalone = { datacenter: DC, name: 'esx-2.example' };
    await addHost(vc, host1);
    await addHost(vc, standalone);
    await createVm(vc, {
      name: 'node-1',
      datacenter: DC,
      host: host1.name,
      uuid: UUID,
      ipAddress: '10.0.0.5',
      hostName: 'node-1.cluster.local',
      cpus: 4,
      memoryMB: 8192,
    });
    await createVm(vc, { name: 'node-2', datacenter: DC, host: standalone.name, powerOn: false });
    expect(await readVm(vc, DC, 'node-1')).toEqual({
      name: 'node-1',
      uuid: UUID,
      powerState: 'poweredOn',
      hostName: 'node-1.cluster.local',
      ipAddresses: ['10.0.0.5'],
      cpus: 4,
      memoryMB: 8192,
    });
    expect((await readVm(vc, DC, 'node-2'))?.powerState).toBe('poweredOff');

    await createTagCategory(vc, 'k8s-region', ['Datacenter']);
    await createTagCategory(vc, 'k8s-zone', ['ClusterComputeResource', 'HostSystem']);
    await createTag(vc, 'k8s-region', 'region-a');
    await createTag(vc, 'k8s-zone', 'zone-a');
    await createTag(vc, 'k8s-zone', 'zone-b');
    await attachTag(vc, 'k8s-region', 'region-a', `/${DC}`);
    await attachTag(vc, 'k8s-zone', 'zone-a', clusterPath(DC, 'cluster-1'));
    await attachTag(vc, 'k8s-zone', 'zone-b', hostPath(standalone));
    expect(await attachedTags(vc, `/${DC}`)).toEqual(['region-a']);
    expect(await attachedTags(vc, clusterPath(DC, 'cluster-1'))).toEqual(['zone-a']);
    expect(await attachedTags(vc, hostPath(standalone))).toEqual(['zone-b']);
  });

  it('powers a VM off and destroys it', async () => {
    await powerOff(vc, DC, 'node-1');
    expect((await readVm(vc, DC, 'node-1'))?.powerState).toBe('poweredOff');
    await destroyVm(vc, DC, 'node-1');
    expect(await readVm(vc, DC, 'node-1')).toBeUndefined();
    expect((await readVm(vc, DC, 'node-2'))?.name).toBe('node-2');
  });

  it("ends the SOAP sessions it holds but govc's own", async () => {
    await vc.govc('about');
    expect(await vc.terminateSoapSessions()).toBe(0);
  });

  it('stops and leaves nothing behind', async () => {
    const other = await startVcsim();
    const dir = other.dir;
    expect(other.running).toBe(true);
    await other.stop();
    expect(other.running).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });
});
