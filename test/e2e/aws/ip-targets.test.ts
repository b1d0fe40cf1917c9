// The AWS plugin's target choice for nodes that are not EC2 instances (another provider's, vsphere:// here), through
// the host's runtime against moto: their NLB target groups are `ip` groups holding the nodes' InternalIPs on the
// NodePorts; EC2 nodes among them join by their InternalIP; when only EC2 nodes are left the groups are instance
// groups again; deletion leaves nothing.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type TestPlugin, testNode, testPort, testService } from '../../../packages/wasm-ccm/src/testing/index.ts';
import { call, elbInventory, xmlTexts, type AwsEnv } from '../../../lab/peers/index.ts';
import { useAwsPlugin } from './support/plugin.ts';
import type { Node } from '../../../host/src/abi/index.ts';

const CLUSTER = 'aws-ip-targets';
let env: AwsEnv;
let plugin: TestPlugin;

useAwsPlugin(
  { cluster: CLUSTER, zones: ['us-east-1a'], instancesPerZone: 1 },
  (started) => ({ env, plugin } = started),
);

/** A node another provider initialized: its providerID and the addresses it set. */
function vsphereNode(name: string, ip: string, extra: Partial<Node> = {}): Node {
  return testNode({
    name,
    providerID: `vsphere://4210a1b2-c3d4-e5f6-0718-293a4b5c6d${name.slice(-2)}`,
    addresses: [
      { type: 'Hostname', address: name },
      { type: 'InternalIP', address: ip },
    ],
    ...extra,
  });
}

/** cloud-provider-aws's target group name hash, over the target type among the rest. */
function groupName(port: number, nodePort: number, targetType: string): string {
  const hash = createHash('sha1').update(`${CLUSTER}shopweb${port}${nodePort}TCP${targetType}TCP30`).digest('hex');
  return `k8s-shop-web-${hash.slice(0, 10)}`;
}

interface GroupView {
  name: string;
  type: string;
  /** `<id>:<port>`, sorted. */
  targets: string[];
}

/** Every target group in moto with its type and targets, by name. */
async function groups(): Promise<GroupView[]> {
  const tgs = await call(env.query, 'elasticloadbalancing', { Action: 'DescribeTargetGroups' });
  const arns = xmlTexts(tgs, 'TargetGroupArn');
  const names = xmlTexts(tgs, 'TargetGroupName');
  const types = xmlTexts(tgs, 'TargetType');
  const out: GroupView[] = [];
  for (const [i, arn] of arns.entries()) {
    const health = await call(env.query, 'elasticloadbalancing', {
      Action: 'DescribeTargetHealth',
      TargetGroupArn: arn,
    });
    const ids = xmlTexts(health, 'Id');
    const ports = xmlTexts(health, 'Port');
    const targets = ids.map((id, k) => `${id}:${ports[k]}`).sort();
    out.push({ name: names[i] ?? '', type: types[i] ?? '', targets });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

describe('aws plugin: IP targets for nodes of another provider', () => {
  const service = testService({ name: 'web', namespace: 'shop', ports: [testPort(80, 30080), testPort(443, 30443)] });
  const ensure = (nodes: Node[]) => plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service, nodes });
  const update = (nodes: Node[]) => plugin.call('updateLoadBalancer', { clusterName: CLUSTER, service, nodes });
  const ipGroups = (ips: string[]) =>
    [
      { name: groupName(80, 30080, 'ip'), type: 'ip', targets: ips.map((ip) => `${ip}:30080`).sort() },
      { name: groupName(443, 30443, 'ip'), type: 'ip', targets: ips.map((ip) => `${ip}:30443`).sort() },
    ].sort((a, b) => a.name.localeCompare(b.name));
  const ec2 = () => env.seeded.instances[0]!;
  const ec2Node = () =>
    testNode({
      name: ec2().privateDnsName,
      providerID: `aws:///${ec2().zone}/${ec2().id}`,
      addresses: [{ type: 'InternalIP', address: ec2().privateIp }],
    });

  it("makes ip target groups of the nodes' InternalIPs on the NodePorts", async () => {
    const status = await ensure([
      vsphereNode('node-01', '10.20.0.11'),
      vsphereNode('node-02', '10.20.0.12'),
      // Not initialized yet, and one with only an IPv6 InternalIP: no targets until they have an IPv4 one.
      testNode({ name: 'new', addresses: [{ type: 'InternalIP', address: '10.20.0.99' }] }),
      vsphereNode('node-03', '10.20.0.13', { addresses: [{ type: 'InternalIP', address: 'fd00::13' }] }),
    ]);
    expect(status.status.ingress[0]?.hostname).toMatch(/\.elb\.amazonaws\.com$/);
    expect(await groups()).toEqual(ipGroups(['10.20.0.11', '10.20.0.12']));
  });

  it('follows the node set, EC2 nodes joining by their InternalIP, and leaves out unlabelled nodes', async () => {
    await update([vsphereNode('node-02', '10.20.0.12'), ec2Node()]);
    expect(await groups()).toEqual(ipGroups(['10.20.0.12', ec2().privateIp]));
    const labelled = testService({
      ...service,
      annotations: { 'service.beta.kubernetes.io/aws-load-balancer-target-node-labels': 'lb=yes' },
    });
    await plugin.call('updateLoadBalancer', {
      clusterName: CLUSTER,
      service: labelled,
      nodes: [vsphereNode('node-01', '10.20.0.11', { labels: { lb: 'yes' } }), vsphereNode('node-02', '10.20.0.12')],
    });
    expect(await groups()).toEqual(ipGroups(['10.20.0.11']));
  });

  it('turns the groups into instance groups once only EC2 nodes are targets', async () => {
    await update([ec2Node()]);
    expect(await groups()).toEqual(
      [
        { name: groupName(80, 30080, 'instance'), type: 'instance', targets: [`${ec2().id}:30080`] },
        { name: groupName(443, 30443, 'instance'), type: 'instance', targets: [`${ec2().id}:30443`] },
      ].sort((a, b) => a.name.localeCompare(b.name)),
    );
    await update([vsphereNode('node-01', '10.20.0.11')]);
    expect(await groups()).toEqual(ipGroups(['10.20.0.11']));
  });

  it('deletes the NLB and its ip target groups, and a group an ensure left behind', async () => {
    await plugin.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service });
    expect(await elbInventory(env.query)).toEqual({ loadBalancers: [], targetGroups: [], listeners: [] });
    // A group made for the Service that no NLB holds (an ensure that failed before its listener): deleted too.
    await call(env.query, 'elasticloadbalancing', {
      Action: 'CreateTargetGroup',
      Name: groupName(80, 30080, 'ip'),
      Protocol: 'TCP',
      Port: '30080',
      VpcId: env.seeded.vpcId,
      TargetType: 'ip',
      'Tags.member.1.Key': `kubernetes.io/cluster/${CLUSTER}`,
      'Tags.member.1.Value': 'owned',
    });
    expect((await elbInventory(env.query)).targetGroups).toEqual([groupName(80, 30080, 'ip')]);
    await plugin.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service });
    expect(await elbInventory(env.query)).toEqual({ loadBalancers: [], targetGroups: [], listeners: [] });
  });
});
