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
  ];
  for (const [config, message] of refusals) {
    it(`refuses a config with: ${message.source.replaceAll('\\', '')}`, async () => {
      await expect(loadTestPlugin(builtPlugin('aws'), { cloudConfig: config })).rejects.toThrow(message);
    });
  }

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
    ['target-node-labels', '=pool'],
    ['additional-resource-tags', '=x'],
  ];
  for (const [name, value] of bad) {
    it(`answers Invalid naming ${name} for ${JSON.stringify(value)}`, async () => {
      const service = testService({ name: 'web', ports: [testPort(80, 30080)], annotations: { [A + name]: value } });
      await expect(plugin.call('ensureLoadBalancer', { clusterName: 'c', service, nodes: [] })).rejects.toMatchObject({
        code: 'Invalid',
        message: expect.stringContaining(`annotation ${A}${name}: ${JSON.stringify(value)} is not valid`),
      });
    });
  }

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
