// The OpenStack plugin's node answers on shapes the lab OpenStack cannot give (its ports never go ACTIVE, its servers
// have one network): OCCM's address order over ACTIVE ports, access IPs, the metadata hostname and nova's networks,
// with [Networking]'s options; the instance type and zone fallbacks; answers that are no answer. A fake Nova and
// Neutron on a loopback port serve the JSON the real ones do.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNode } from '../../../host/src/conformance/index.ts';
import { type KeystoneCatalog, loadOpenStackPlugin, type OpenStackPlugin } from '../../../lab/plugins/index.ts';

const fixed = (addr: string) => ({ addr, version: addr.includes(':') ? 6 : 4, 'OS-EXT-IPS:type': 'fixed' });
const floating = (addr: string) => ({ addr, version: 4, 'OS-EXT-IPS:type': 'floating' });
const port = (status: string, ips: string[]) => ({
  id: `port-${ips[0]}`,
  status,
  network_id: 'n',
  fixed_ips: ips.map((ip_address) => ({ ip_address, subnet_id: 's' })),
});

const SERVERS: Record<string, unknown> = {
  a: {
    id: 'a',
    name: 'node-a',
    status: 'ACTIVE',
    flavor: { id: 'small' },
    'OS-EXT-AZ:availability_zone': 'az one/two',
    accessIPv4: '203.0.113.1',
    accessIPv6: '2001:db8::1',
    metadata: { hostname: 'node-a.example' },
    // Nova's map, networks in no particular order: OCCM walks them sorted by name.
    addresses: {
      'net-b': [fixed('10.1.0.5')],
      'net-a': [fixed('10.0.0.5'), floating('172.24.4.9')],
      pub: [fixed('198.51.100.7')],
    },
  },
  b: {
    id: 'b',
    name: 'node-b',
    status: 'SHUTOFF',
    flavor: { id: 'odd' },
    'OS-EXT-AZ:availability_zone': 'nova',
    accessIPv4: '10.0.0.2',
    accessIPv6: '',
    metadata: {},
    addresses: {},
  },
};
const PORTS: Record<string, unknown[]> = {
  a: [port('ACTIVE', ['10.0.0.5', 'fd00::5']), port('DOWN', ['10.1.0.5'])],
  b: [port('ACTIVE', ['10.0.0.10']), port('ACTIVE', ['10.0.0.9'])],
};
const FLAVORS: Record<string, unknown> = {
  small: { id: 'small', name: 'm1.small' },
  // Not a label value: OCCM takes the flavor's ID.
  odd: { id: 'odd', name: 'Large (4 CPUs)' },
};

function answer(url: URL): [number, string] {
  const path = url.pathname;
  const json = (body: unknown): [number, string] => [200, JSON.stringify(body)];
  if (path === '/v2.1/servers/detail') {
    const name = url.searchParams.get('name');
    if (name === '^twin$') return json({ servers: [SERVERS.a, SERVERS.a] });
    return json({ servers: Object.values(SERVERS).filter((s) => `^${(s as { name: string }).name}$` === name) });
  }
  if (path === '/v2.1/servers/html') return [200, '<html>maintenance</html>'];
  const server = /^\/v2\.1\/servers\/([^/]+)$/.exec(path)?.[1];
  if (server !== undefined) return SERVERS[server] ? json({ server: SERVERS[server] }) : [404, '{}'];
  const flavor = /^\/v2\.1\/flavors\/([^/]+)$/.exec(path)?.[1];
  if (flavor !== undefined) {
    return FLAVORS[flavor] ? json({ flavor: FLAVORS[flavor] }) : [404, '{"itemNotFound": {"message": "no flavor"}}'];
  }
  if (path === '/v2.0/ports') return json({ ports: PORTS[url.searchParams.get('device_id') ?? ''] ?? [] });
  return [404, '{}'];
}

let server: http.Server;
let catalog: KeystoneCatalog;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const [status, body] = answer(new URL(req.url ?? '/', 'http://fake'));
    res.writeHead(status, { 'content-type': body.startsWith('<') ? 'text/html' : 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  catalog = {
    region: 'RegionOne',
    interface: 'public',
    endpoints: [
      { type: 'compute', name: 'nova', url: `${root}/v2.1` },
      // An endpoint listed with its version keeps it once.
      { type: 'network', name: 'neutron', url: `${root}/v2.0/` },
      { type: 'load-balancer', name: 'octavia', url: root },
    ],
  };
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function withPlugin(cloudConfig: string, run: (plugin: OpenStackPlugin) => Promise<void>): Promise<void> {
  const plugin = await loadOpenStackPlugin({ cloudConfig, catalog });
  try {
    await run(plugin);
  } finally {
    await plugin.close();
  }
}

const addresses = async (plugin: OpenStackPlugin, name: string): Promise<string[]> =>
  (await plugin.call('instanceMetadata', { node: testNode({ name }) })).nodeAddresses.map(
    (a) => `${a.type} ${a.address}`,
  );

describe('openstack plugin: node addresses in OCCM order', () => {
  it('lists ACTIVE ports, access IPs, the hostname, then nova networks by name, without duplicates', async () => {
    await withPlugin('', async (plugin) => {
      expect(await addresses(plugin, 'node-a')).toEqual([
        'InternalIP 10.0.0.5',
        'InternalIP fd00::5',
        'ExternalIP 203.0.113.1',
        'ExternalIP 2001:db8::1',
        'Hostname node-a.example',
        'ExternalIP 172.24.4.9',
        'InternalIP 10.1.0.5',
        'InternalIP 198.51.100.7',
      ]);
    });
  });

  it('applies ipv6-support-disabled, public and internal network names, and address-sort-order', async () => {
    const networking = [
      '[Networking]',
      'ipv6-support-disabled = true',
      'public-network-name = pub',
      'internal-network-name = net-a',
      'address-sort-order = 172.24.4.0/24, 10.0.0.0/8',
    ].join('\n');
    await withPlugin(networking, async (plugin) => {
      expect(await addresses(plugin, 'node-a')).toEqual([
        'ExternalIP 172.24.4.9',
        'InternalIP 10.0.0.5',
        'ExternalIP 203.0.113.1',
        'Hostname node-a.example',
        'ExternalIP 198.51.100.7',
      ]);
    });
  });

  it('sorts addresses of the same CIDR by their bytes, keeping the others in place', async () => {
    await withPlugin('[Networking]\naddress-sort-order = 10.0.0.0/8\n', async (plugin) => {
      expect(await addresses(plugin, 'node-b')).toEqual([
        'ExternalIP 10.0.0.2',
        'InternalIP 10.0.0.9',
        'InternalIP 10.0.0.10',
      ]);
    });
  });
});

describe('openstack plugin: instance type, zone and answers that are no answer', () => {
  it("takes the flavor's ID when its name is no label value, and makes the zone a label", async () => {
    await withPlugin('', async (plugin) => {
      const a = await plugin.call('instanceMetadata', { node: testNode({ name: 'node-a' }) });
      expect([a.instanceType, a.zone]).toEqual(['m1.small', 'az-one-two']);
      const b = await plugin.call('instanceMetadata', { node: testNode({ name: 'node-b' }) });
      expect([b.instanceType, b.zone]).toEqual(['odd', 'nova']);
      expect(await plugin.call('instanceShutdown', { node: testNode({ name: 'node-b' }) })).toEqual({ shutdown: true });
    });
  });

  it('refuses two servers of one name, a page that is no JSON, and a flavor nova cannot find', async () => {
    SERVERS.c = { ...(SERVERS.b as object), id: 'c', name: 'node-c', flavor: { id: 'gone' } };
    try {
      await withPlugin('', async (plugin) => {
        await expect(plugin.call('instanceExists', { node: testNode({ name: 'twin' }) })).rejects.toMatchObject({
          code: 'Internal',
          message: expect.stringContaining('more than one server is named twin'),
        });
        const html = testNode({ name: 'x', providerID: 'openstack:///html' });
        await expect(plugin.call('instanceExists', { node: html })).rejects.toMatchObject({
          code: 'Internal',
          message: expect.stringContaining('the answer is not JSON'),
        });
        await expect(plugin.call('instanceMetadata', { node: testNode({ name: 'node-c' }) })).rejects.toMatchObject({
          code: 'Internal',
          message: expect.stringMatching(/flavor original_name\/id not found.*404 no flavor/),
        });
      });
    } finally {
      delete SERVERS.c;
    }
  });
});
