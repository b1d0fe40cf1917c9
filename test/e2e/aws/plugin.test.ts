// The AWS plugin through the host's runtime (wasm-ccm/testing) against moto with signature checks on: every request
// the plugin makes is signed by the host's broker from the awsSigV4 credentials entries, or moto refuses it.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadTestPlugin,
  type TestPlugin,
  testNode,
  testPort,
  testService,
} from '../../../packages/wasm-ccm/src/testing/index.ts';
import {
  call,
  elbInventory,
  privateSubnet,
  setInstanceState,
  xmlText,
  xmlTexts,
  type AwsEnv,
} from '../../../lab/peers/index.ts';
import { builtPlugin } from '../../../lab/plugins/index.ts';
import { useAwsPlugin } from './support/plugin.ts';

const CLUSTER = 'aws-plugin-test';
let env: AwsEnv;
let plugin: TestPlugin;

useAwsPlugin({ cluster: CLUSTER }, (started) => ({ env, plugin } = started));

const instance = (i: number) => env.seeded.instances[i]!;

/** cloud-provider-aws's buildTargetGroupName for the Service below (TCP, instance targets, its TCP health check every 30 s). */
function upstreamTargetGroupName(port: number, nodePort: number): string {
  const hash = createHash('sha1').update(`${CLUSTER}shopweb${port}${nodePort}TCPinstanceTCP30`).digest('hex');
  return `k8s-shop-web-${hash.slice(0, 10)}`;
}

describe('aws plugin: InstancesV2', () => {
  it('finds an instance by private DNS name and by providerID alike, with type, zone, region and addresses', async () => {
    const a = instance(0);
    const byName = await plugin.call('instanceMetadata', { node: testNode({ name: a.privateDnsName }) });
    expect(byName).toEqual({
      providerID: `aws:///${a.zone}/${a.id}`,
      instanceType: a.type,
      zone: a.zone,
      region: 'us-east-1',
      nodeAddresses: [
        { type: 'InternalIP', address: a.privateIp },
        { type: 'InternalDNS', address: a.privateDnsName },
        { type: 'Hostname', address: a.privateDnsName },
      ],
      // The zone's ID as moto's account maps it (AWS's us-east-1a is use1-az6 there).
      additionalLabels: { 'topology.k8s.aws/zone-id': a.zone === 'us-east-1a' ? 'use1-az6' : 'use1-az1' },
    });
    const byID = await plugin.call('instanceMetadata', {
      node: testNode({ name: 'other', providerID: byName.providerID }),
    });
    expect(byID).toEqual(byName);
    // A Node that already has the label keeps its own: the plugin adds none.
    const labelled = testNode({ name: a.privateDnsName, labels: { 'topology.k8s.aws/zone-id': 'mine' } });
    expect((await plugin.call('instanceMetadata', { node: labelled })).additionalLabels).toEqual({});
  });

  it('counts a stopped instance as existing and shut down, a terminated one as gone', async () => {
    const stopped = instance(1);
    const terminated = instance(3);
    await setInstanceState(env.query, stopped.id, 'StopInstances');
    await setInstanceState(env.query, terminated.id, 'TerminateInstances');
    const node = (i: typeof stopped) => testNode({ name: i.privateDnsName, providerID: `aws:///${i.zone}/${i.id}` });
    expect(await plugin.call('instanceExists', { node: node(stopped) })).toEqual({ exists: true });
    expect(await plugin.call('instanceShutdown', { node: node(stopped) })).toEqual({ shutdown: true });
    expect(await plugin.call('instanceShutdown', { node: node(instance(0)) })).toEqual({ shutdown: false });
    expect(await plugin.call('instanceExists', { node: node(terminated) })).toEqual({ exists: false });
    await expect(plugin.call('instanceMetadata', { node: node(terminated) })).rejects.toMatchObject({
      code: 'InstanceNotFound',
    });
    // By name too: a terminated instance keeps its DNS name in EC2, but it is no node's any more.
    const byName = testNode({ name: terminated.privateDnsName });
    expect(await plugin.call('instanceExists', { node: byName })).toEqual({ exists: false });
  });

  it('answers InstanceNotFound for unknown names and IDs, Invalid for another cloud', async () => {
    await expect(
      plugin.call('instanceMetadata', { node: testNode({ name: 'ip-10-9-9-9.ec2.internal' }) }),
    ).rejects.toMatchObject({ code: 'InstanceNotFound' });
    const unknown = testNode({ name: 'x', providerID: 'aws:///us-east-1a/i-0123456789abcdef0' });
    expect(await plugin.call('instanceExists', { node: unknown })).toEqual({ exists: false });
    const foreign = testNode({ name: 'x', providerID: 'gce://project/zone/x' });
    await expect(plugin.call('instanceExists', { node: foreign })).rejects.toMatchObject({ code: 'Invalid' });
  });

  it('answers zones from the instance placement and the configured zone', async () => {
    const a = instance(2);
    const zone = { failureDomain: a.zone, region: 'us-east-1' };
    expect(await plugin.call('getZoneByProviderID', { providerID: `aws:///${a.zone}/${a.id}` })).toEqual(zone);
    expect(await plugin.call('getZoneByNodeName', { nodeName: a.privateDnsName })).toEqual(zone);
    expect(await plugin.call('getZone', {})).toEqual({ failureDomain: 'us-east-1a', region: 'us-east-1' });
  });
});

describe('aws plugin: LoadBalancer (NLB)', () => {
  const service = testService({
    name: 'web',
    namespace: 'shop',
    ports: [testPort(80, 30080), testPort(443, 30443)],
    annotations: {
      'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb',
      'service.beta.kubernetes.io/aws-load-balancer-additional-resource-tags': 'team=web,cost-center=42',
    },
  });
  const nodes = () => [0, 2].map((i) => testNode({ name: instance(i).privateDnsName }));

  async function targetsOf(tgArn: string): Promise<string[]> {
    const body = await call(env.query, 'elasticloadbalancing', {
      Action: 'DescribeTargetHealth',
      TargetGroupArn: tgArn,
    });
    return xmlTexts(body, 'Id').sort();
  }

  async function lbState() {
    const lbs = await call(env.query, 'elasticloadbalancing', { Action: 'DescribeLoadBalancers' });
    const arn = xmlText(lbs, 'LoadBalancerArn');
    const tags = await call(env.query, 'elasticloadbalancing', {
      Action: 'DescribeTags',
      'ResourceArns.member.1': arn,
    });
    const tgs = await call(env.query, 'elasticloadbalancing', { Action: 'DescribeTargetGroups', LoadBalancerArn: arn });
    const listeners = await call(env.query, 'elasticloadbalancing', {
      Action: 'DescribeListeners',
      LoadBalancerArn: arn,
    });
    const tgArns = xmlTexts(tgs, 'TargetGroupArn');
    return {
      names: xmlTexts(lbs, 'LoadBalancerName'),
      dnsName: xmlText(lbs, 'DNSName'),
      scheme: xmlText(lbs, 'Scheme'),
      tags: Object.fromEntries(xmlTexts(tags, 'Key').map((k, i) => [k, xmlTexts(tags, 'Value')[i]])),
      targetGroupPorts: xmlTexts(tgs, 'Port').sort(),
      targetGroupNames: xmlTexts(tgs, 'TargetGroupName').sort(),
      listenerPorts: xmlTexts(listeners, 'Port').sort(),
      targets: await Promise.all(tgArns.map(targetsOf)),
    };
  }

  it('refuses a bad annotation value as Invalid naming the annotation, and creates nothing', async () => {
    const bad = testService({
      name: 'bad',
      ports: [testPort(80, 30081)],
      annotations: { 'service.beta.kubernetes.io/aws-load-balancer-healthcheck-interval': 'often' },
    });
    await expect(
      plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service: bad, nodes: nodes() }),
    ).rejects.toMatchObject({
      code: 'Invalid',
      message: expect.stringContaining('aws-load-balancer-healthcheck-interval'),
    });
    const classic = testService({
      name: 'classic',
      ports: [testPort(80, 30082)],
      annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'elb' },
    });
    await expect(
      plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service: classic, nodes: nodes() }),
    ).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining('aws-load-balancer-type') });
    expect((await elbInventory(env.query)).loadBalancers).toEqual([]);
  });

  it('makes an NLB with a listener and an instance target group per port, tagged as upstream tags it', async () => {
    const status = await plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service, nodes: nodes() });
    const state = await lbState();
    expect(status.status.ingress).toEqual([{ ip: '', hostname: state.dnsName, ipMode: '', ports: [] }]);
    expect(state.names).toEqual([`a${service.uid.replaceAll('-', '')}`.slice(0, 32)]);
    expect(state.scheme).toBe('internet-facing');
    expect(state.tags).toEqual({
      [`kubernetes.io/cluster/${CLUSTER}`]: 'owned',
      'kubernetes.io/service-name': 'shop/web',
      team: 'web',
      'cost-center': '42',
    });
    expect(state.listenerPorts).toEqual(['443', '80']);
    expect(state.targetGroupPorts).toEqual(['30080', '30443']);
    expect(state.targetGroupNames).toEqual(
      [upstreamTargetGroupName(80, 30080), upstreamTargetGroupName(443, 30443)].sort(),
    );
    const expected = [instance(0).id, instance(2).id].sort();
    expect(state.targets).toEqual([expected, expected]);
    // Ensure again: the same answer, nothing new.
    expect(await plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service, nodes: nodes() })).toEqual(status);
    expect(await lbState()).toEqual(state);
    expect(await plugin.call('getLoadBalancer', { clusterName: CLUSTER, service })).toEqual({
      exists: true,
      ...status,
    });
  });

  it('re-registers targets when the node set changes, and owns nothing of another cluster', async () => {
    const one = [testNode({ name: instance(2).privateDnsName })];
    await plugin.call('updateLoadBalancer', { clusterName: CLUSTER, service, nodes: one });
    expect((await lbState()).targets).toEqual([[instance(2).id], [instance(2).id]]);
    await plugin.call('updateLoadBalancer', { clusterName: CLUSTER, service, nodes: nodes() });
    const both = [instance(0).id, instance(2).id].sort();
    expect((await lbState()).targets).toEqual([both, both]);
    // Stopped (1), terminated (3) and unknown instances are no targets, and do not fail the update.
    const withGone = [
      ...nodes(),
      ...[1, 3].map((i) =>
        testNode({ name: instance(i).privateDnsName, providerID: `aws:///${instance(i).zone}/${instance(i).id}` }),
      ),
      testNode({ name: 'gone', providerID: 'aws:///us-east-1a/i-0123456789abcdef0' }),
    ];
    await plugin.call('updateLoadBalancer', { clusterName: CLUSTER, service, nodes: withGone });
    expect((await lbState()).targets).toEqual([both, both]);
    expect(await plugin.call('getLoadBalancer', { clusterName: 'another', service })).toMatchObject({ exists: false });
    await plugin.call('ensureLoadBalancerDeleted', { clusterName: 'another', service });
    expect((await elbInventory(env.query)).loadBalancers).toHaveLength(1);
  });

  it('deletes the NLB, its listeners and target groups, and again without error', async () => {
    await plugin.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service });
    expect(await elbInventory(env.query)).toEqual({ loadBalancers: [], targetGroups: [], listeners: [] });
    await plugin.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service });
    expect(await plugin.call('getLoadBalancer', { clusterName: CLUSTER, service })).toMatchObject({ exists: false });
  });

  it('leaves an external Service to the AWS Load Balancer Controller', async () => {
    const external = testService({
      name: 'ext',
      ports: [testPort(80, 30083)],
      annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'external' },
    });
    await expect(
      plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service: external, nodes: nodes() }),
    ).rejects.toMatchObject({ code: 'ImplementedElsewhere' });
  });
});

describe('aws plugin: Routes', () => {
  const route = (cidr: string, target: string) => ({
    name: '',
    targetNode: target,
    targetNodeAddresses: [],
    destinationCIDR: cidr,
    blackhole: false,
  });

  it('creates a route to the node instance in the tagged table, lists it, deletes it', async () => {
    const a = instance(0);
    await plugin.call('createRoute', {
      clusterName: CLUSTER,
      nameHint: 'n',
      route: route('10.244.1.0/24', a.privateDnsName),
    });
    await plugin.call('createRoute', {
      clusterName: CLUSTER,
      nameHint: 'n',
      route: route('10.244.1.0/24', a.privateDnsName),
    });
    const table = await call(env.query, 'ec2', {
      Action: 'DescribeRouteTables',
      'RouteTableId.1': env.seeded.routeTableId,
    });
    expect(xmlTexts(table, 'instanceId')).toEqual([a.id]);
    const listed = await plugin.call('listRoutes', { clusterName: CLUSTER });
    expect(listed.routes).toEqual([{ ...route('10.244.1.0/24', a.privateDnsName), name: `${CLUSTER}-10.244.1.0/24` }]);
    // Another cluster's table is the one tagged with its name: there is none.
    expect((await plugin.call('listRoutes', { clusterName: 'another' })).routes).toEqual([]);
    await plugin.call('deleteRoute', { clusterName: CLUSTER, route: route('10.244.1.0/24', a.privateDnsName) });
    await plugin.call('deleteRoute', { clusterName: CLUSTER, route: route('10.244.1.0/24', a.privateDnsName) });
    expect((await plugin.call('listRoutes', { clusterName: CLUSTER })).routes).toEqual([]);
  });
});

describe('aws plugin: answers of another service', () => {
  it('fails a lookup rather than calling the instance gone when EC2 calls reach another service', async () => {
    // Signed for S3, moto routes the calls to S3, which answers 200 with its bucket list.
    const misrouted = join(dirname(env.credentialsFile), 'misrouted.json');
    const credentials = JSON.parse(readFileSync(env.credentialsFile, 'utf8')) as {
      credentials: { awsSigV4: { service: string } }[];
    };
    for (const c of credentials.credentials) c.awsSigV4.service = 's3';
    writeFileSync(misrouted, JSON.stringify(credentials));
    const wrong = await loadTestPlugin(builtPlugin('aws'), {
      cloudConfig: env.cloudConfig,
      clusterName: CLUSTER,
      allowedHosts: env.allowedHosts,
      credentialsFile: misrouted,
    });
    try {
      const node = testNode({ name: instance(0).privateDnsName });
      await expect(wrong.call('instanceExists', { node })).rejects.toMatchObject({
        code: 'Internal',
        message: expect.stringContaining('not <DescribeInstancesResponse>'),
      });
    } finally {
      await wrong.close();
    }
  });
});

describe('aws plugin: configuration', () => {
  it('refuses a cloud config without a VPC, naming it', async () => {
    const cloudConfig = env.cloudConfig.replace(/^VPC = .*$/m, '');
    await expect(loadTestPlugin(builtPlugin('aws'), { cloudConfig, allowedHosts: env.allowedHosts })).rejects.toThrow(
      /\[Global\] VPC is required/,
    );
  });
});

describe('aws plugin: load balancer subnets', () => {
  it('puts an internet-facing NLB in public subnets only, an internal one in private subnets too', async () => {
    // A third zone whose only subnet is private (its own route table, no internet gateway), tagged like the others.
    const hidden = await privateSubnet(env.query, {
      vpcId: env.seeded.vpcId,
      cluster: CLUSTER,
      cidr: '10.0.9.0/24',
      zone: 'us-east-1c',
    });
    const subnetsOf = async (svc: ReturnType<typeof testService>): Promise<string[]> => {
      await plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service: svc, nodes: [] });
      const name = `a${svc.uid.replaceAll('-', '')}`.slice(0, 32);
      const lbs = await call(env.query, 'elasticloadbalancing', {
        Action: 'DescribeLoadBalancers',
        'Names.member.1': name,
      });
      await plugin.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service: svc });
      return xmlTexts(lbs, 'SubnetId').sort();
    };
    const nlb = { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' };
    const edge = testService({ name: 'edge', ports: [testPort(80, 30090)], annotations: nlb });
    const inner = testService({
      name: 'inner',
      ports: [testPort(80, 30091)],
      annotations: { ...nlb, 'service.beta.kubernetes.io/aws-load-balancer-internal': 'true' },
    });
    expect(await subnetsOf(edge)).toEqual([...env.seeded.subnetIds].sort());
    expect(await subnetsOf(inner)).toEqual([...env.seeded.subnetIds, hidden].sort());
    expect((await elbInventory(env.query)).loadBalancers).toEqual([]);
  });
});
