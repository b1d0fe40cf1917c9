// The OpenStack plugin's refusals that come before any request: the service catalog the host hands it, its cloud
// config (OCCM's cloud.conf), Service annotations and providerIDs. Each is Invalid and names what is wrong. The
// catalog points at a closed loopback port, so a check that let a bad value through would reach for the network and
// fail otherwise, and every test also asserts that no request was made.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNode, testPort, testService } from '../../../host/src/conformance/index.ts';
import { type KeystoneCatalog, loadOpenStackPlugin, type OpenStackPlugin } from '../../../lab/plugins/index.ts';

const CATALOG: KeystoneCatalog = {
  region: 'RegionOne',
  interface: 'public',
  endpoints: [
    { type: 'compute', name: 'nova', url: 'http://127.0.0.1:1/v2.1' },
    { type: 'network', name: 'neutron', url: 'http://127.0.0.1:1' },
    { type: 'load-balancer', name: 'octavia', url: 'http://127.0.0.1:1/' },
    { type: 'identity', name: 'keystone', url: 'http://127.0.0.1:1/v3' },
  ],
};

// A cloud.conf as OCCM's documentation writes it; the host removed the password before the plugin sees it.
const OCCM_CONF = `
[Global]
auth-url = http://127.0.0.1:5000/v3
username = ccm
user-domain-name = Default
tenant-name = k8s
tenant-domain-name = Default
region = RegionTwo
tls-insecure = true

[LoadBalancer]
subnet-id = 5f2b6a0e-0000-4000-8000-000000000001
floating-network-id = 5f2b6a0e-0000-4000-8000-000000000002
lb-method = SOURCE_IP_PORT ; inline comments as gcfg reads them
create-monitor = yes
monitor-delay = 1m30s
manage-security-groups = false

[Networking]
public-network-name = public
public-network-name = "ext net"
address-sort-order = 10.0.0.0/8, 192.168.0.0/16

[Metadata]
search-order = configDrive,metadataService
request-timeout = 20s

[Route]
router-id = 5f2b6a0e-0000-4000-8000-000000000003
`;

describe('openstack plugin: catalog and cloud config', () => {
  it('refuses to start without the catalog, naming the config key it reads', async () => {
    await expect(loadOpenStackPlugin({ cloudConfig: '' })).rejects.toThrow(
      /no service catalog.*keystone\.catalog nor keystone\.openstack\.catalog/,
    );
  });

  it('reads the catalog of a keystone credentials entry named openstack when keystone.catalog is absent', async () => {
    const catalogKey = 'keystone.openstack.catalog';
    const plugin = await loadOpenStackPlugin({ cloudConfig: '', catalog: CATALOG, catalogKey });
    try {
      expect(await plugin.call('getZone', {})).toEqual({ failureDomain: '', region: 'RegionOne' });
    } finally {
      await plugin.close();
    }
    const elsewhere = { catalog: CATALOG, catalogKey: 'keystone.cloud.catalog' };
    await expect(loadOpenStackPlugin({ cloudConfig: '', ...elsewhere })).rejects.toThrow(/no service catalog/);
  });

  it('refuses a catalog without an endpoint it needs, naming the service type', async () => {
    const catalog = { ...CATALOG, endpoints: CATALOG.endpoints.filter((e) => e.type !== 'load-balancer') };
    await expect(loadOpenStackPlugin({ cloudConfig: '', catalog })).rejects.toThrow(
      /has no endpoint of type load-balancer \(octavia\)/,
    );
    // Without load balancers (OCCM's enabled = false) octavia is not needed.
    const plugin = await loadOpenStackPlugin({ cloudConfig: '[LoadBalancer]\nenabled = false\n', catalog });
    await plugin.close();
  });

  const refusals: [string, RegExp][] = [
    ['[Global]\nregion = r\ncolour = red\n', /\[global\] colour: unknown option/],
    ['[Other]\nx = 1\n', /unknown section \[other\]/],
    ['[LoadBalancerClass "internal"]\nsubnet-id = x\n', /load balancer classes are not supported/],
    ['[LoadBalancer]\nmanage-security-groups = true\n', /manage-security-groups: not supported by this plugin/],
    ['[LoadBalancer]\nprovider-requires-serial-api-calls = true\n', /provider-requires-serial-api-calls: not supp/],
    ['[LoadBalancer]\nfloating-subnet = ext-*\n', /floating-subnet: not supported by this plugin/],
    ['[LoadBalancer]\ndefault-tls-container-ref = https://x/v1/containers/1\n', /default-tls-container-ref: not/],
    ['[LoadBalancer]\nlb-method = RANDOM\n', /lb-method: "RANDOM" is not one of ROUND_ROBIN/],
    ['[LoadBalancer]\nlb-version = v1\n', /lb-version: "v1": only v2 is supported/],
    ['[LoadBalancer]\nmonitor-delay = 5\n', /monitor-delay: "5" is not a duration such as 5s/],
    ['[LoadBalancer]\ncreate-monitor = maybe\n', /create-monitor: "maybe" is not a boolean/],
    ['[LoadBalancer]\nmonitor-max-retries = -1\n', /monitor-max-retries: "-1" is not a count/],
    ['[Metadata]\nsearch-order = cloudInit\n', /search-order: "cloudInit" is not configDrive or metadataService/],
    ['[Metadata]\nrequest-timeout = soon\n', /request-timeout: "soon" is not a duration/],
    ['[Networking]\nipv6-support-disabled = 2\n', /ipv6-support-disabled: "2" is not a boolean/],
    ['[Environment]\nOS_CCM_REGION = true\n', /OCCM reads OS_CCM_REGIONAL and OCCM_WAIT_LB_ACTIVE_STEPS/],
    ['[Environment]\nOCCM_WAIT_LB_ACTIVE_STEPS = 41\n', /"41" is not a number of steps, 0-40/],
    // The spelling OCCM's own parser accepts in the same file (it refuses '_' in a name).
    ['[Environment]\noccm-wait-lb-active-steps = 41\n', /"41" is not a number of steps, 0-40/],
    ['[Global\nregion = r\n', /line 1: bad section header/],
    ['region = r\n', /line 1: a variable before any \[section\]/],
    ['[Global]\nregion = "r\n', /line 2: expected name = value/],
  ];
  for (const [cloudConfig, message] of refusals) {
    it(`refuses a config with: ${message.source.replaceAll('\\', '')}`, async () => {
      await expect(loadOpenStackPlugin({ cloudConfig, catalog: CATALOG })).rejects.toThrow(message);
    });
  }

  it("reads OCCM's cloud.conf, ignoring its auth keys, and takes the region from it, else from the catalog", async () => {
    const plugin = await loadOpenStackPlugin({ cloudConfig: OCCM_CONF, catalog: CATALOG });
    try {
      expect(await plugin.call('getZone', {})).toEqual({ failureDomain: '', region: 'RegionTwo' });
      expect(plugin.requests).toEqual([]);
    } finally {
      await plugin.close();
    }
    const fromCatalog = await loadOpenStackPlugin({ cloudConfig: '[Global]\nusername = ccm\n', catalog: CATALOG });
    try {
      expect(await fromCatalog.call('getZone', {})).toEqual({ failureDomain: '', region: 'RegionOne' });
    } finally {
      await fromCatalog.close();
    }
  });
});

describe('openstack plugin: annotations and providerIDs', () => {
  let plugin: OpenStackPlugin;
  beforeAll(async () => {
    plugin = await loadOpenStackPlugin({ cloudConfig: '[Global]\nregion = RegionOne\n', catalog: CATALOG });
  }, 60_000);
  afterAll(async () => {
    await plugin?.close();
  });

  const L = 'loadbalancer.openstack.org/';
  const bad: [string, string, string][] = [
    [`${L}connection-limit`, 'many', 'is not an integer'],
    [`${L}connection-limit`, '-2', 'is out of range'],
    [`${L}timeout-client-data`, '1.5', 'is not an integer'],
    [`${L}health-monitor-max-retries`, '11', 'is out of range'],
    [`${L}enable-health-monitor`, 'yes', 'is not valid: want true or false'],
    [`${L}keep-floatingip`, 'True', 'is not valid: want true or false'],
    [`${L}x-forwarded-for`, '1', 'is not valid: want true or false'],
    ['service.beta.kubernetes.io/openstack-internal-load-balancer', 'on', 'is not valid: want true or false'],
    [`${L}proxy-protocol`, 'v3', 'is not valid: want true, v1, v2 or false'],
    [`${L}lb-method`, 'RANDOM', 'is not valid: want ROUND_ROBIN'],
    ['service.beta.kubernetes.io/load-balancer-source-ranges', '10.0.0.0/33', 'is not a CIDR'],
    [`${L}class`, 'gold', 'is not supported by this plugin'],
    [`${L}default-tls-container-ref`, 'https://kms/v1/containers/1', 'is not supported by this plugin'],
    [`${L}floating-subnet-tags`, 'a', 'is not supported by this plugin'],
  ];
  for (const [name, value, why] of bad) {
    it(`answers Invalid naming ${name} for ${JSON.stringify(value)}`, async () => {
      const service = testService({ name: 'web', ports: [testPort(80, 30080)], annotations: { [name]: value } });
      const before = plugin.requests.length;
      await expect(
        plugin.call('ensureLoadBalancer', { clusterName: 'c', service, nodes: [testNode({ name: 'n' })] }),
      ).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining(name) });
      await expect(plugin.call('updateLoadBalancer', { clusterName: 'c', service, nodes: [] })).rejects.toMatchObject({
        code: 'Invalid',
        message: expect.stringContaining(why),
      });
      expect(plugin.requests.slice(before)).toEqual([]);
    });
  }

  it('refuses proxy-protocol together with x-forwarded-for, as OCCM does', async () => {
    const annotations = { [`${L}proxy-protocol`]: 'true', [`${L}x-forwarded-for`]: 'true' };
    const service = testService({ name: 'web', ports: [testPort(80, 30080)], annotations });
    await expect(plugin.call('ensureLoadBalancer', { clusterName: 'c', service, nodes: [] })).rejects.toMatchObject({
      code: 'Invalid',
      message: expect.stringContaining('cannot be used together'),
    });
  });

  it('names the load balancer as OCCM does: kube_service_<cluster>_<namespace>_<name>, at most 255 characters', async () => {
    const service = testService({ name: 'web', namespace: 'shop' });
    expect(await plugin.call('getLoadBalancerName', { clusterName: 'prod', service })).toEqual({
      name: 'kube_service_prod_shop_web',
    });
    const long = testService({ name: 'x'.repeat(253), namespace: 'shop' });
    const { name } = await plugin.call('getLoadBalancerName', { clusterName: 'prod', service: long });
    expect(name).toHaveLength(255);
  });

  it('answers Invalid for a providerID of another form or region, naming it', async () => {
    for (const providerID of ['aws:///us-east-1a/i-1', 'openstack://', 'openstack:///a/b', 'openstack://RegionTwo/x']) {
      await expect(
        plugin.call('instanceExists', { node: testNode({ name: 'n', providerID }) }),
        providerID,
      ).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining(providerID) });
    }
    expect(plugin.requests).toEqual([]);
  });
});
