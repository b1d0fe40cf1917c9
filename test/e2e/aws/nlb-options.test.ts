// The AWS plugin's NLB options and node lookups that follow cloud-provider-aws, through the host's runtime against
// moto: upstream's subnet discovery and the -subnets annotation, externalTrafficPolicy Local health checks, cross-zone
// and target group attributes, TLS listeners, target node labels by key, nodes named by instance ID, and instances
// without the cluster tag left out of the targets.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type TestPlugin, testNode, testPort, testService } from '../../../packages/wasm-ccm/src/testing/index.ts';
import {
  call,
  elbInventory,
  runInstance,
  tagResource,
  xmlText,
  xmlTexts,
  type AwsEnv,
} from '../../../lab/peers/index.ts';
import type { Service } from '../../../host/src/abi/index.ts';
import { useAwsPlugin } from './support/plugin.ts';
import { parseXml, select, textAt } from './support/xml-tree.ts';

const CLUSTER = 'aws-nlb-options';
const A = 'service.beta.kubernetes.io/aws-load-balancer-';
const NLB = { [`${A}type`]: 'nlb' };
let env: AwsEnv;
let plugin: TestPlugin;

useAwsPlugin(
  { cluster: CLUSTER, zones: ['us-east-1a', 'us-east-1b'], instancesPerZone: 1 },
  (started) => ({ env, plugin } = started),
);

const instance = (i: number) => env.seeded.instances[i]!;
const lbName = (svc: Service) => `a${svc.uid.replaceAll('-', '')}`.slice(0, 32);
const elb = (params: Record<string, string>) => call(env.query, 'elasticloadbalancing', params);
const ec2 = (params: Record<string, string>) => call(env.query, 'ec2', params);

async function lbArn(svc: Service): Promise<string> {
  return xmlText(await elb({ Action: 'DescribeLoadBalancers', 'Names.member.1': lbName(svc) }), 'LoadBalancerArn');
}

/** Ensures the Service, runs `check`, then deletes it and checks that moto holds nothing of it. */
async function withLoadBalancer(svc: Service, nodes: ReturnType<typeof testNode>[], check: () => Promise<void>) {
  await plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service: svc, nodes });
  try {
    await check();
  } finally {
    await plugin.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service: svc });
  }
  expect(await elbInventory(env.query)).toEqual({ loadBalancers: [], targetGroups: [], listeners: [] });
}

/** Key -> Value of a Describe*Attributes answer (moto writes an empty value as <Value/>). */
function attributes(body: string): Record<string, string> {
  const members = select(parseXml(body), '*/*/Attributes/member');
  return Object.fromEntries(members.map((m) => [textAt(m, 'Key') ?? '', textAt(m, 'Value') ?? '']));
}

async function subnet(zone: string, cidr: string, tags: Record<string, string>): Promise<string> {
  const id = xmlText(
    await ec2({ Action: 'CreateSubnet', VpcId: env.seeded.vpcId, CidrBlock: cidr, AvailabilityZone: zone }),
    'subnetId',
  );
  if (Object.keys(tags).length > 0) await tagResource(env.query, id, tags);
  return id;
}

describe('aws plugin: subnets as upstream finds them', () => {
  it('takes cluster-tagged or untagged subnets, one per zone by role tag, cluster tag, lowest ID; or the annotation', async () => {
    const clusterTag = { [`kubernetes.io/cluster/${CLUSTER}`]: 'shared' };
    const role = { 'kubernetes.io/role/elb': '1' };
    // 1a: the seeded subnet has role and cluster tags; one with the role tag only loses to it.
    await subnet('us-east-1a', '10.0.11.0/24', role);
    // 1c: another cluster's role-tagged subnet is never used; an untagged one is.
    await subnet('us-east-1c', '10.0.12.0/24', { 'kubernetes.io/cluster/other': 'owned', ...role });
    const untagged = await subnet('us-east-1c', '10.0.13.0/24', { Name: 'plain-c' });
    // 1d: the role tag wins over the cluster tag.
    await subnet('us-east-1d', '10.0.14.0/24', clusterTag);
    const roleOnly = await subnet('us-east-1d', '10.0.15.0/24', role);
    const edge = testService({ name: 'edge', ports: [testPort(80, 30100)], annotations: NLB });
    await withLoadBalancer(edge, [], async () => {
      const lbs = await elb({ Action: 'DescribeLoadBalancers', 'Names.member.1': lbName(edge) });
      expect(xmlTexts(lbs, 'SubnetId').sort()).toEqual([...env.seeded.subnetIds, untagged, roleOnly].sort());
    });
    const named = testService({
      name: 'named',
      ports: [testPort(80, 30101)],
      annotations: { ...NLB, [`${A}subnets`]: `${env.seeded.subnetIds[1]}, plain-c` },
    });
    await withLoadBalancer(named, [], async () => {
      const lbs = await elb({ Action: 'DescribeLoadBalancers', 'Names.member.1': lbName(named) });
      expect(xmlTexts(lbs, 'SubnetId').sort()).toEqual([env.seeded.subnetIds[1], untagged].sort());
    });
    const unknown = testService({
      name: 'unknown',
      ports: [testPort(80, 30102)],
      annotations: { ...NLB, [`${A}subnets`]: 'plain-c,no-such-subnet' },
    });
    await expect(
      plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service: unknown, nodes: [] }),
    ).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining(`annotation ${A}subnets`) });
    expect((await elbInventory(env.query)).loadBalancers).toEqual([]);
  });
});

describe('aws plugin: NLB health checks and attributes', () => {
  const nodes = () => [0, 1].map((i) => testNode({ name: instance(i).privateDnsName }));

  async function groupOf(svc: Service) {
    const body = await elb({ Action: 'DescribeTargetGroups', LoadBalancerArn: await lbArn(svc) });
    const one = (tag: string) => xmlTexts(body, tag)[0] ?? '';
    return {
      name: one('TargetGroupName'),
      arn: one('TargetGroupArn'),
      health: [one('HealthCheckProtocol'), one('HealthCheckPort'), one('HealthCheckPath')],
      timing: [one('HealthCheckIntervalSeconds'), one('HealthCheckTimeoutSeconds')],
      thresholds: [one('HealthyThresholdCount'), one('UnhealthyThresholdCount')],
    };
  }

  it('checks an externalTrafficPolicy Local Service as upstream: HTTP /healthz every 10 s, 2 and 2, its name', async () => {
    const local = testService({
      name: 'local',
      namespace: 'shop',
      ports: [testPort(80, 30110)],
      annotations: NLB,
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 31110,
    });
    await withLoadBalancer(local, nodes(), async () => {
      const tg = await groupOf(local);
      expect(tg.health).toEqual(['HTTP', '31110', '/healthz']);
      // No timeout sent: moto's default for a TCP group (AWS's is its own too).
      expect(tg.timing).toEqual(['10', '10']);
      expect(tg.thresholds).toEqual(['2', '2']);
      const hash = createHash('sha1').update(`${CLUSTER}shoplocal8030110TCPinstanceHTTP10`).digest('hex');
      expect(tg.name).toBe(`k8s-shop-local-${hash.slice(0, 10)}`);
    });
    const timed = testService({
      name: 'timed',
      ports: [testPort(80, 30111)],
      annotations: { ...NLB, [`${A}healthcheck-timeout`]: '7', [`${A}healthcheck-healthy-threshold`]: '4' },
    });
    await withLoadBalancer(timed, nodes(), async () => {
      expect((await groupOf(timed)).timing).toEqual(['30', '7']);
      // A changed threshold modifies the group in place, as upstream does (the name hashes neither).
      const before = await groupOf(timed);
      timed.annotations[`${A}healthcheck-healthy-threshold`] = '5';
      await plugin.call('updateLoadBalancer', { clusterName: CLUSTER, service: timed, nodes: nodes() });
      const after = await groupOf(timed);
      expect([after.arn, after.thresholds]).toEqual([before.arn, ['5', '3']]);
    });
  });

  it('sets cross-zone and target group attributes, and clears cross-zone when the annotation goes', async () => {
    const svc = testService({
      name: 'attrs',
      ports: [testPort(80, 30120)],
      annotations: {
        ...NLB,
        [`${A}cross-zone-load-balancing-enabled`]: 'true',
        [`${A}target-group-attributes`]: 'proxy_protocol_v2.enabled=true,preserve_client_ip.enabled=false',
      },
    });
    const lbAttribute = async (key: string) => {
      const body = await elb({ Action: 'DescribeLoadBalancerAttributes', LoadBalancerArn: await lbArn(svc) });
      return attributes(body)[key];
    };
    await withLoadBalancer(svc, nodes(), async () => {
      expect(await lbAttribute('load_balancing.cross_zone.enabled')).toBe('true');
      const tgArn = xmlText(
        await elb({ Action: 'DescribeTargetGroups', LoadBalancerArn: await lbArn(svc) }),
        'TargetGroupArn',
      );
      const attrs = await elb({ Action: 'DescribeTargetGroupAttributes', TargetGroupArn: tgArn });
      expect(attributes(attrs)).toMatchObject({
        'proxy_protocol_v2.enabled': 'true',
        'preserve_client_ip.enabled': 'false',
      });
      delete svc.annotations[`${A}cross-zone-load-balancing-enabled`];
      await plugin.call('updateLoadBalancer', { clusterName: CLUSTER, service: svc, nodes: nodes() });
      expect(await lbAttribute('load_balancing.cross_zone.enabled')).toBe('false');
    });
  });

  it('makes TLS listeners for the ssl-ports with the certificate and policy, TCP for the others', async () => {
    const cert = 'arn:aws:iam::123456789012:server-certificate/shop';
    const svc = testService({
      name: 'tls',
      ports: [testPort(80, 30130, { name: 'http' }), testPort(443, 30131, { name: 'https' })],
      annotations: {
        ...NLB,
        [`${A}ssl-cert`]: cert,
        [`${A}ssl-ports`]: 'https',
        [`${A}ssl-negotiation-policy`]: 'ELBSecurityPolicy-TLS13-1-2-2021-06',
      },
    });
    const listeners = async () => {
      const body = await elb({ Action: 'DescribeListeners', LoadBalancerArn: await lbArn(svc) });
      const ports = xmlTexts(body, 'Port');
      return Object.fromEntries(ports.map((p, i) => [p, xmlTexts(body, 'Protocol')[i]]));
    };
    await withLoadBalancer(svc, nodes(), async () => {
      expect(await listeners()).toEqual({ '80': 'TCP', '443': 'TLS' });
      const body = await elb({ Action: 'DescribeListeners', LoadBalancerArn: await lbArn(svc) });
      expect(xmlTexts(body, 'CertificateArn')).toEqual([cert]);
      expect(xmlTexts(body, 'SslPolicy')).toContain('ELBSecurityPolicy-TLS13-1-2-2021-06');
      // The target groups stay TCP (no backend-protocol ssl); ensuring again changes nothing.
      const tgs = await elb({ Action: 'DescribeTargetGroups', LoadBalancerArn: await lbArn(svc) });
      expect(xmlTexts(tgs, 'Protocol')).toEqual(['TCP', 'TCP']);
      await plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service: svc, nodes: nodes() });
      expect(await listeners()).toEqual({ '80': 'TCP', '443': 'TLS' });
    });
  });
});

describe('aws plugin: which nodes are targets', () => {
  async function targets(svc: Service): Promise<string[]> {
    const tgArn = xmlText(
      await elb({ Action: 'DescribeTargetGroups', LoadBalancerArn: await lbArn(svc) }),
      'TargetGroupArn',
    );
    return xmlTexts(await elb({ Action: 'DescribeTargetHealth', TargetGroupArn: tgArn }), 'Id').sort();
  }

  it('matches a target node label given by key only on the key, whatever its value', async () => {
    const svc = testService({
      name: 'labels',
      ports: [testPort(80, 30140)],
      annotations: { ...NLB, [`${A}target-node-labels`]: 'pool' },
    });
    const nodes = [
      testNode({ name: instance(0).privateDnsName, labels: { pool: 'a' } }),
      testNode({ name: instance(1).privateDnsName, labels: { other: 'b' } }),
    ];
    await withLoadBalancer(svc, nodes, async () => {
      expect(await targets(svc)).toEqual([instance(0).id]);
    });
  });

  it('leaves out instances without the cluster tag, takes the legacy KubernetesCluster tag', async () => {
    const groups = await ec2({
      Action: 'DescribeSecurityGroups',
      'Filter.1.Name': 'group-name',
      'Filter.1.Value.1': `${CLUSTER}-nodes`,
    });
    const sg = xmlText(groups, 'groupId');
    const untagged = await runInstance(env.query, env.seeded.subnetIds[0]!, sg);
    const legacy = await runInstance(env.query, env.seeded.subnetIds[0]!, sg);
    await tagResource(env.query, legacy.id, { KubernetesCluster: CLUSTER });
    const other = await runInstance(env.query, env.seeded.subnetIds[0]!, sg);
    await tagResource(env.query, other.id, { 'kubernetes.io/cluster/another': 'owned' });
    const byId = (i: { id: string; zone: string }) => testNode({ name: i.id, providerID: `aws:///${i.zone}/${i.id}` });
    const svc = testService({ name: 'tagged', ports: [testPort(80, 30150)], annotations: NLB });
    await withLoadBalancer(svc, [instance(0), untagged, legacy, other].map(byId), async () => {
      expect(await targets(svc)).toEqual([instance(0).id, legacy.id].sort());
    });
  });

  it('initializes nodes named by instance ID (resource-based hostnames) and makes them targets', async () => {
    const a = instance(1);
    for (const name of [a.id, `${a.id}.us-east-1.compute.internal`]) {
      const meta = await plugin.call('instanceMetadata', { node: testNode({ name }) });
      expect(meta).toMatchObject({ providerID: `aws:///${a.zone}/${a.id}`, zone: a.zone, instanceType: a.type });
      expect(await plugin.call('instanceExists', { node: testNode({ name }) })).toEqual({ exists: true });
      expect(await plugin.call('getZoneByNodeName', { nodeName: name })).toEqual({
        failureDomain: a.zone,
        region: 'us-east-1',
      });
    }
    await expect(
      plugin.call('instanceMetadata', { node: testNode({ name: 'i-0123456789abcdef0' }) }),
    ).rejects.toMatchObject({
      code: 'InstanceNotFound',
    });
    const svc = testService({ name: 'rbn', ports: [testPort(80, 30160)], annotations: NLB });
    await withLoadBalancer(svc, [testNode({ name: a.id })], async () => {
      expect(await targets(svc)).toEqual([a.id]);
    });
  });
});
