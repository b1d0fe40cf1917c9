// The AWS plugin's refusals that come before any request: its cloud config (cloud-provider-aws's INI), Service
// annotations and providerIDs. Each is Invalid and names what is wrong; no HTTP is allowed, so a check that let a
// bad value through would reach for the network and fail otherwise (Forbidden), not with these messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadTestPlugin,
  type TestPlugin,
  testNode,
  testPort,
  testService,
} from '../../../packages/wasm-ccm/src/testing/index.ts';
import { builtPlugin } from '../../../lab/plugins/index.ts';

const GOOD = '[Global]\nZone = eu-west-1b\nVPC = vpc-1\n';

describe('aws plugin: cloud config', () => {
  const refusals: [string, RegExp][] = [
    ['[Global]\nVPC = vpc-1\n', /\[Global\] Region \(or Zone\) is required/],
    ['[Global]\nRegion = us-east-1\n', /\[Global\] VPC is required/],
    [`${GOOD}[Other]\nx = 1\n`, /unknown section \[Other\]/],
    [
      `${GOOD}[ServiceOverride "1"]\nService = ec2\nURL = ftp://x\n`,
      /\[ServiceOverride "1"\] URL must be http\(s\):\/\//,
    ],
    [`${GOOD}[ServiceOverride "1"]\nService = ec3\nURL = http://x\n`, /Service ec3 is not an AWS service/],
    [`${GOOD}[ServiceOverride "1"]\nService = ec2\nURL = http://x\nColour = red\n`, /unknown key colour/],
    ['[Global\nVPC = vpc-1\n', /line 1: bad section header/],
    [`${GOOD}RoleARN = arn:aws:iam::1:role/ccm\n`, /\[Global\] RoleARN is not supported: .*credentials entry/],
    [`${GOOD}SourceARN = arn:aws:eks:x\n`, /\[Global\] SourceARN is not supported/],
    [`${GOOD}NodeIPFamilies = ipv6\n`, /\[Global\] NodeIPFamilies ipv6 is not supported/],
    [
      `${GOOD}ClusterServiceLoadBalancerHealthProbeMode = Often\n`,
      /HealthProbeMode Often is not Shared or ServiceNodePort/,
    ],
    [`${GOOD}ClusterServiceSharedLoadBalancerHealthProbePort = 0\n`, /HealthProbePort 0 is not a port 1-65535/],
    [`${GOOD}ClusterServiceSharedLoadBalancerHealthProbePath = healthz\n`, /HealthProbePath healthz does not start/],
    [`${GOOD}DisableSecurityGroupIngress = maybe\n`, /DisableSecurityGroupIngress maybe is not true or false/],
    [`${GOOD}Colour = red\n`, /\[Global\] unknown key colour/],
  ];
  for (const [config, message] of refusals) {
    it(`refuses a config with: ${message.source.replaceAll('\\', '')}`, async () => {
      await expect(loadTestPlugin(builtPlugin('aws'), { cloudConfig: config })).rejects.toThrow(message);
    });
  }

  it('accepts every other [Global] key of upstream', async () => {
    const config = [
      GOOD.trimEnd(),
      'SubnetID = subnet-1',
      'RouteTableID = rtb-1',
      'KubernetesClusterTag = legacy',
      'DisableSecurityGroupIngress = true',
      'ElbSecurityGroup = sg-1',
      'NLBSecurityGroupMode = Managed',
      'NodeIPFamilies = ipv4',
      'SupportedTopologyInstanceTypePattern = ^p5',
      'ClusterServiceLoadBalancerHealthProbeMode = Shared',
      'ClusterServiceSharedLoadBalancerHealthProbePort = 10256',
      'ClusterServiceSharedLoadBalancerHealthProbePath = /healthz',
      '',
    ].join('\n');
    const plugin = await loadTestPlugin(builtPlugin('aws'), { cloudConfig: config });
    await plugin.close();
  });

  it('takes the region from the zone, and the zone for getZone', async () => {
    const plugin = await loadTestPlugin(builtPlugin('aws'), { cloudConfig: GOOD });
    try {
      expect(await plugin.call('getZone', {})).toEqual({ failureDomain: 'eu-west-1b', region: 'eu-west-1' });
    } finally {
      await plugin.close();
    }
  });
});

describe('aws plugin: annotations and providerIDs', () => {
  let plugin: TestPlugin;
  beforeAll(async () => {
    plugin = await loadTestPlugin(builtPlugin('aws'), { cloudConfig: GOOD });
  }, 60_000);
  afterAll(async () => {
    await plugin?.close();
  });

  const A = 'service.beta.kubernetes.io/aws-load-balancer-';
  const bad: [string, string][] = [
    ['type', 'elb'],
    ['healthcheck-protocol', 'UDP'],
    ['healthcheck-port', '0'],
    ['healthcheck-port', 'http'],
    ['healthcheck-path', 'healthz'],
    ['healthcheck-interval', '2'],
    ['healthcheck-timeout', '1.5'],
    ['healthcheck-healthy-threshold', '11'],
    ['healthcheck-unhealthy-threshold', ''],
    ['target-node-labels', '=x'],
    ['additional-resource-tags', '=x'],
    ['cross-zone-load-balancing-enabled', 'yes'],
    ['access-log-enabled', 'on'],
    ['target-group-attributes', 'stickiness.enabled=true'],
    ['target-group-attributes', 'proxy_protocol_v2.enabled=1'],
    ['target-group-attributes', 'preserve_client_ip.enabled='],
    ['subnets', ' , '],
  ];
  for (const [name, value] of bad) {
    it(`answers Invalid naming ${name} for ${JSON.stringify(value)}`, async () => {
      // An NLB's checks (classic-checks.test.ts has the Classic ELB's); `type` itself is one of the bad values.
      const annotations = { [`${A}type`]: 'nlb', [A + name]: value };
      const service = testService({ name: 'web', ports: [testPort(80, 30080)], annotations });
      await expect(plugin.call('ensureLoadBalancer', { clusterName: 'c', service, nodes: [] })).rejects.toMatchObject({
        code: 'Invalid',
        message: expect.stringContaining(`annotation ${A}${name}: ${JSON.stringify(value)} is not valid`),
      });
    });
  }

  for (const name of ['eip-allocations', 'private-ipv4-addresses', 'security-groups', 'extra-security-groups']) {
    it(`refuses ${name}, which it does not implement for an NLB, naming it`, async () => {
      const service = testService({ name: 'web', annotations: { [`${A}type`]: 'nlb', [A + name]: 'x' } });
      await expect(plugin.call('ensureLoadBalancer', { clusterName: 'c', service, nodes: [] })).rejects.toMatchObject({
        code: 'Invalid',
        message: expect.stringContaining(`annotation ${A}${name} is not supported`),
      });
    });
  }

  it('refuses what upstream refuses of the Service: client IP affinity, mixed protocols, loadBalancerIP', async () => {
    const cases: [Partial<Parameters<typeof testService>[0]>, RegExp][] = [
      [{ sessionAffinity: 'ClientIP' }, /sessionAffinity ClientIP is not supported/],
      [{ ports: [testPort(53, 30053), testPort(53, 30054, { protocol: 'UDP' })] }, /mixed protocols \(TCP and UDP\)/],
      [{ loadBalancerIP: '10.0.0.1' }, /loadBalancerIP cannot be specified/],
      [{ ports: [] }, /at least one Service port/],
    ];
    for (const [fields, message] of cases) {
      const service = testService({ name: 'web', annotations: { [`${A}type`]: 'nlb' }, ...fields });
      await expect(plugin.call('ensureLoadBalancer', { clusterName: 'c', service, nodes: [] })).rejects.toMatchObject({
        code: 'Invalid',
        message: expect.stringMatching(message),
      });
    }
  });

  it('refuses source ranges that are no IPv4 CIDRs, naming where they come from', async () => {
    const cases: [Partial<Parameters<typeof testService>[0]>, string][] = [
      [{ loadBalancerSourceRanges: ['10.0.0.0/8', '10.0.0.0/33'] }, 'spec.loadBalancerSourceRanges: "10.0.0.0/33"'],
      [{ loadBalancerSourceRanges: ['fd00::/8'] }, 'spec.loadBalancerSourceRanges: "fd00::/8"'],
      [
        { annotations: { [`${A}type`]: 'nlb', 'service.beta.kubernetes.io/load-balancer-source-ranges': '10.0.0.1' } },
        'annotation service.beta.kubernetes.io/load-balancer-source-ranges: "10.0.0.1"',
      ],
    ];
    for (const [fields, message] of cases) {
      const service = testService({ name: 'web', annotations: { [`${A}type`]: 'nlb' }, ...fields });
      await expect(plugin.call('ensureLoadBalancer', { clusterName: 'c', service, nodes: [] })).rejects.toMatchObject({
        code: 'Invalid',
        message: expect.stringContaining(`${message} is not valid: want IPv4 CIDRs`),
      });
    }
  });

  it('leaves nlb-ip and external to the AWS Load Balancer Controller, as upstream does', async () => {
    for (const type of ['nlb-ip', 'external']) {
      const service = testService({ name: 'web', annotations: { [`${A}type`]: type } });
      await expect(plugin.call('ensureLoadBalancer', { clusterName: 'c', service, nodes: [] })).rejects.toMatchObject({
        code: 'ImplementedElsewhere',
      });
    }
  });

  it('names the load balancer as upstream does: "a" and the UID without dashes, 32 characters', async () => {
    const service = testService({ name: 'web', uid: '6a2f1e0c-1b2c-4d5e-8f90-123456789abc' });
    expect(await plugin.call('getLoadBalancerName', { clusterName: 'c', service })).toEqual({
      name: 'a6a2f1e0c1b2c4d5e8f90123456789ab',
    });
  });

  it('answers Invalid for a providerID that is not aws:///<zone>/<instance id>', async () => {
    for (const providerID of [
      'gce://p/z/n',
      'aws://host/zone/i-1',
      'aws:///zone/vol-1',
      'aws:///a/b/i-1',
      'aws:///z/i-X',
    ]) {
      await expect(
        plugin.call('instanceExists', { node: testNode({ name: 'n', providerID }) }),
        providerID,
      ).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining(providerID) });
    }
  });
});
