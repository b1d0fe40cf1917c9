// The vSphere plugin's pure parts in a compiled module (plugins/vsphere/assembly/probe.ts): vsphere.conf in its YAML and
// INI forms with upstream's defaults and its refusals, the system UUID's byte order, instance types, and the choice of
// node addresses among a VM's NICs. The plugin through the host against vcsim: test/e2e/vsphere.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load, type TestPlugin } from '../../../lab/plugins/index.ts';
import { compileAssemblyScript } from '../../../plugin-sdk/tools/compile.ts';

const PLUGIN_DIR = join(import.meta.dirname, '..', '..', '..', 'plugins', 'vsphere');

let probe: TestPlugin;
beforeAll(async () => {
  const built = await compileAssemblyScript(join(PLUGIN_DIR, 'assembly', 'probe.ts'), {
    optimize: false,
    cacheDir: join(PLUGIN_DIR, 'build', 'probe'),
    checkCapabilities: false,
  });
  probe = await load(built.wasm);
}, 300_000);
afterAll(async () => {
  await probe?.plugin.close();
});

const config = (text: string) => probe.json('config_probe', text) as Promise<Record<string, unknown>>;

// The YAML form of upstream's documentation, with a second vCenter and the auth options the host reads instead.
const YAML_CONF = `
# vsphere.conf
global:
  port: 443
  insecureFlag: true
  secretName: cpi-global-secret
  secretNamespace: kube-system

vcenter:
  tenant-a:
    server: 10.0.0.1
    user: "administrator@vsphere.local"
    datacenters:
      - DC0
      - 'folder/DC 1'
  tenant-b:
    server: vc-b.example
    port: 8443
    datacenters: [DC9]
    ipFamily: [ipv6, ipv4]

labels:
  region: k8s-region   # the category names
  zone: k8s-zone

nodes:
  internalNetworkSubnetCidr: 10.0.0.0/8,192.168.0.0/16
  excludeExternalNetworkSubnetCidr: "172.16.0.0/12"
  externalVmNetworkName: "VM Network"
`;

const INI_CONF = `
[Global]
user = "administrator@vsphere.local"
password = "not read here"
port = "443"
insecure-flag = "true"
datacenters = "DC0, DC1"

[VirtualCenter "10.0.0.1"]
[VirtualCenter "10.0.0.2"]
port = 8443
ip-family = ipv4,ipv6 ; inline comments as gcfg reads them

[Labels]
zone = k8s-zone
region = k8s-region

[Nodes]
internal-vm-network-name = "Internal"
exclude-internal-network-subnet-cidr = 10.9.0.0/16
`;

describe('vsphere.conf', () => {
  it('reads the YAML form with upstream defaults, leaving credentials and TLS to the host with a note', async () => {
    expect(await config(YAML_CONF)).toEqual({
      format: 'yaml',
      vcenters: [
        { name: 'tenant-a', url: 'https://10.0.0.1', datacenters: ['DC0', 'folder/DC 1'], ipFamilies: ['ipv4'] },
        { name: 'tenant-b', url: 'https://vc-b.example:8443', datacenters: ['DC9'], ipFamilies: ['ipv6', 'ipv4'] },
      ],
      zone: 'k8s-zone',
      region: 'k8s-region',
      nodes: {
        internalSubnets: 2,
        externalSubnets: 0,
        excludeInternalSubnets: 0,
        excludeExternalSubnets: 1,
        internalNetworkName: '',
        externalNetworkName: 'VM Network',
      },
      notes: [
        "global.insecureFlag ignored: the host's vsphere credentials entry logs in",
        "global.secretName ignored: the host's vsphere credentials entry logs in",
        "global.secretNamespace ignored: the host's vsphere credentials entry logs in",
        "vcenter.tenant-a.user ignored: the host's vsphere credentials entry logs in",
      ],
    });
  });

  it('reads the legacy INI form: subsections name servers, the global datacenters and port are inherited', async () => {
    expect(await config(INI_CONF)).toMatchObject({
      format: 'ini',
      vcenters: [
        { name: '10.0.0.1', url: 'https://10.0.0.1', datacenters: ['DC0', 'DC1'], ipFamilies: ['ipv4'] },
        { name: '10.0.0.2', url: 'https://10.0.0.2:8443', datacenters: ['DC0', 'DC1'], ipFamilies: ['ipv4', 'ipv6'] },
      ],
      zone: 'k8s-zone',
      region: 'k8s-region',
      nodes: { excludeInternalSubnets: 1, internalNetworkName: 'Internal' },
    });
    // A global server is a vCenter of its own; IPv6 literals are bracketed in the URL.
    expect(await config('global:\n  server: "fd00::1"\n  port: 9443\n')).toMatchObject({
      vcenters: [{ name: 'fd00::1', url: 'https://[fd00::1]:9443', datacenters: [], ipFamilies: ['ipv4'] }],
    });
  });

  it('refuses what it cannot read or does not carry out, naming it', async () => {
    const cases: [string, string][] = [
      ['', 'no vSphere cloud provider config given'],
      ['global:\n  port: 443\n', 'no vCenter defined (global.server, or a vcenter entry)'],
      ['vcenter:\n  a:\n    port: 443\n', 'vcenter.a.server: required'],
      ['global:\n  server: vc\n  port: "443"\n', 'global.port: "443" is not a port number'],
      ['global:\n  server: vc\n  port: 70000\n', 'global.port: "70000" is not a port number'],
      ['global:\n  server: vc\n  ipFamily: [ipv5]\n', 'global.ipFamily: "ipv5" is not ipv4 or ipv6'],
      ['global:\n  server: vc\n  serverr: x\n', 'unknown key global.serverr'],
      [
        'global:\n  server: vc\n  apiBinding: ":43001"\n',
        'global.apiBinding: not supported (the plugin serves no API)',
      ],
      ['global:\n  server: vc\nloadBalancer:\n  ipPoolName: x\n', 'unknown key loadBalancer'],
      [
        'global:\n  server: vc\nnodes:\n  internalNetworkSubnetCidr: 10.0.0.0/33\n',
        'nodes.internalNetworkSubnetCidr: "10.0.0.0/33" is not a CIDR',
      ],
      ['global:\n  server: &vc vc\n', 'line 2: a value starting with "&" (YAML anchors'],
      ['global:\n  server: vc\n  server: vd\n', 'line 3: key server given twice'],
      ['global:\n\tserver: vc\n', 'line 2: a tab in indentation'],
      ['global:\n  server: vc\n   port: 1\n', 'line 3: unexpected indentation'],
      ['[Global]\nserver = vc\n[LoadBalancer]\nipPoolName = x\n', 'unknown section [loadbalancer]'],
      ['[Global]\nserver = vc\nip-family = ipv4,ipvx\n', '[global] ip-family: "ipvx" is not ipv4 or ipv6'],
      ['[Global]\nserver = "vc\n', 'INI line 2: expected name = value'],
    ];
    for (const [text, message] of cases) {
      const got = (await config(text)) as { error?: string };
      expect(got.error, text).toContain(message);
      expect(got.error).toMatch(/^cloud config \(vsphere\.conf\): /);
    }
  });
});

describe('node identity and instance types', () => {
  it("swaps the first three groups of the kubelet's system UUID, as upstream's ConvertK8sUUIDtoNormal", async () => {
    expect(
      await probe.json('uuid_probe', {
        uuids: ['DE045126-7214-7C54-B873-6DC7883FB6CB', 'short', '265104de-1472-547c-b873-6dc7883fb6cb'],
      }),
    ).toEqual({
      converted: ['265104de-1472-547c-b873-6dc7883fb6cb', 'short', 'de045126-7214-7c54-b873-6dc7883fb6cb'],
    });
  });

  it('names instance types by CPUs, whole GiB of memory and the guest family ("unknown" past the table)', async () => {
    const type = (numCpu: number, memoryMB: number, guestId: string) =>
      probe.json('instance_type_probe', { numCpu, memoryMB, guestId });
    expect(await type(4, 16384, 'ubuntu64Guest')).toEqual({ instanceType: 'vsphere-vm.cpu-4.mem-16gb.os-ubuntu' });
    expect(await type(2, 3583, 'rhel7_64Guest')).toEqual({ instanceType: 'vsphere-vm.cpu-2.mem-3gb.os-rhel7' });
    expect(await type(1, 512, 'rhel9_64Guest')).toEqual({ instanceType: 'vsphere-vm.cpu-1.mem-0gb.os-unknown' });
  });
});

describe('node addresses', () => {
  const nic = (network: string, ips: string[], deviceConfigId = 4000) => ({ network, deviceConfigId, ips });
  const addresses = (conf: string, hostName: string, nics: unknown[]) =>
    probe.json('addresses_probe', { config: `global:\n  server: vc\n${conf}`, hostName, nics });

  it('takes the first usable address as both internal and external by default, skipping local-only ones', async () => {
    const nics = [
      nic('VM Network', ['127.0.0.1', 'fe80::1', '169.254.0.9', '10.0.0.5', '10.0.0.6']),
      nic('x', ['9.9.9.9'], -1),
    ];
    expect(await addresses('', 'node-a', nics)).toEqual({
      addresses: ['Hostname node-a', 'InternalIP 10.0.0.5', 'ExternalIP 10.0.0.5'],
      error: '',
    });
  });

  it('prefers configured subnets, then VM network names, after the exclusions', async () => {
    const nics = [nic('Internal', ['192.168.1.4']), nic('Public', ['203.0.113.7', '10.1.0.2'])];
    const bySubnet = 'nodes:\n  internalNetworkSubnetCidr: 10.0.0.0/8\n  externalNetworkSubnetCidr: 203.0.113.0/24\n';
    expect(await addresses(bySubnet, '', nics)).toMatchObject({
      addresses: ['InternalIP 10.1.0.2', 'ExternalIP 203.0.113.7'],
    });
    const byName = 'nodes:\n  internalVmNetworkName: internal\n  excludeExternalNetworkSubnetCidr: 192.168.0.0/16\n';
    // The internal one by network name; the external one unset, since one rule found an address.
    expect(await addresses(byName, '', nics)).toMatchObject({ addresses: ['InternalIP 192.168.1.4'] });
  });

  it('walks the IP families in priority order and fails when a family has no address', async () => {
    const nics = [nic('n', ['10.0.0.5', 'fd00::5'])];
    const dual = await addresses('  ipFamily: [ipv6, ipv4]\n', 'h', nics);
    expect(dual).toMatchObject({
      addresses: [
        'Hostname h',
        'InternalIP fd00::5',
        'ExternalIP fd00::5',
        'InternalIP 10.0.0.5',
        'ExternalIP 10.0.0.5',
      ],
    });
    expect(await addresses('  ipFamily: [ipv6]\n', 'h', [nic('n', ['10.0.0.5'])])).toMatchObject({
      error: 'unable to find suitable IP address for node with IP family ipv6',
    });
    const names = 'nodes:\n  internalVmNetworkName: a\n  externalVmNetworkName: b\n';
    expect(await addresses(names, 'h', nics)).toMatchObject({
      error: expect.stringContaining('no NIC on network a or b'),
    });
    expect(await addresses('', 'h', [nic('n', ['127.0.0.1'])])).toMatchObject({
      error: 'unable to find suitable IP address for node after filtering out localhost IPs',
    });
  });
});
