// The AWS plugin's Classic ELB refusals that come before any request (no HTTP is allowed here, so a check that let a
// bad Service through would reach for the network and fail with Forbidden, not with these messages): NLB-only
// annotations, named; bad values; what a Classic ELB cannot do (UDP, ClientIP affinity); and the annotations it takes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadTestPlugin,
  type TestPlugin,
  testPort,
  testService,
} from '../../../packages/wasm-ccm/src/testing/index.ts';
import { builtPlugin } from '../../../lab/plugins/index.ts';

const A = 'service.beta.kubernetes.io/aws-load-balancer-';

describe('aws plugin: Classic ELB refusals', () => {
  let plugin: TestPlugin;
  beforeAll(async () => {
    plugin = await loadTestPlugin(builtPlugin('aws'), { cloudConfig: '[Global]\nZone = eu-west-1b\nVPC = vpc-1\n' });
  }, 60_000);
  afterAll(async () => {
    await plugin?.close();
  });

  const ensure = (fields: Parameters<typeof testService>[0]) =>
    plugin.call('ensureLoadBalancer', { clusterName: 'c', service: testService(fields), nodes: [] });

  // With no HTTP allowed, a Service that passes every check fails at its first request (not allowed, not Invalid).
  const valid: Record<string, string>[] = [
    { 'ssl-cert': 'arn:aws:acm:us-east-1:123456789012:certificate/x', 'ssl-ports': 'https,8443' },
    { 'ssl-cert': 'arn:aws:iam::123456789012:server-certificate/x', 'backend-protocol': 'http' },
    { 'ssl-negotiation-policy': 'ELBSecurityPolicy-TLS-1-2-2017-01', 'backend-protocol': 'ssl' },
    { 'proxy-protocol': '*' },
    { 'security-groups': 'sg-1, sg-2', 'extra-security-groups': 'sg-3' },
    { subnets: 'subnet-1,private-a' },
  ];
  for (const set of valid) {
    it(`takes ${Object.keys(set).join(' + ')} on a Classic ELB`, async () => {
      const annotations = Object.fromEntries(Object.entries(set).map(([k, v]) => [A + k, v]));
      await expect(ensure({ name: 'web', annotations })).rejects.toMatchObject({
        message: expect.stringContaining('elasticloadbalancing.eu-west-1.amazonaws.com is not allowed'),
      });
    });
  }

  it('refuses NLB-only annotations on a Classic ELB, naming them', async () => {
    for (const name of ['target-group-attributes', 'eip-allocations', 'private-ipv4-addresses', 'nlb-target-type']) {
      await expect(ensure({ name: 'web', annotations: { [A + name]: 'x' } })).rejects.toMatchObject({
        code: 'Invalid',
        message: expect.stringContaining(`${A}${name} applies to an NLB only`),
      });
    }
  });

  const badValues: [string, string][] = [
    ['connection-idle-timeout', 'long'],
    ['connection-draining-enabled', 'yes'],
    ['connection-draining-timeout', '0'],
    ['cross-zone-load-balancing-enabled', 'maybe'],
    ['access-log-emit-interval', '10'],
    ['backend-protocol', 'HTTP'],
    ['backend-protocol', 'grpc'],
    ['proxy-protocol', 'true'],
    ['ssl-negotiation-policy', ''],
    ['healthcheck-timeout', '61'],
  ];
  for (const [name, value] of badValues) {
    it(`answers Invalid naming ${name} for ${JSON.stringify(value)}`, async () => {
      await expect(ensure({ name: 'web', annotations: { [A + name]: value } })).rejects.toMatchObject({
        code: 'Invalid',
        message: expect.stringContaining(`annotation ${A}${name}: ${JSON.stringify(value)} is not valid`),
      });
    });
  }

  it('refuses access logs without a bucket, a timeout not below the interval, and bad source ranges', async () => {
    await expect(ensure({ name: 'web', annotations: { [`${A}access-log-enabled`]: 'true' } })).rejects.toMatchObject({
      code: 'Invalid',
      message: expect.stringContaining('access-log-s3-bucket-name'),
    });
    const slow = { [`${A}healthcheck-timeout`]: '10', [`${A}healthcheck-interval`]: '10' };
    await expect(ensure({ name: 'web', annotations: slow })).rejects.toMatchObject({
      code: 'Invalid',
      message: expect.stringContaining('not less than the interval'),
    });
    await expect(ensure({ name: 'web', loadBalancerSourceRanges: ['10.0.0.0/33'] })).rejects.toMatchObject({
      code: 'Invalid',
      message: expect.stringContaining('spec.loadBalancerSourceRanges: "10.0.0.0/33"'),
    });
  });

  it('refuses UDP and ClientIP affinity, which a Classic ELB cannot serve', async () => {
    await expect(ensure({ name: 'dns', ports: [testPort(53, 30053, { protocol: 'UDP' })] })).rejects.toMatchObject({
      code: 'Invalid',
      message: expect.stringContaining('protocol UDP is not supported by a Classic ELB'),
    });
    await expect(ensure({ name: 'web', sessionAffinity: 'ClientIP' })).rejects.toMatchObject({
      code: 'Invalid',
      message: expect.stringContaining('unsupported load balancer affinity: ClientIP'),
    });
  });
});
