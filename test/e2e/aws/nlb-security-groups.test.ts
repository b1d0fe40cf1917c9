// The AWS plugin's NLB rules in the instances' security groups, through the host's runtime against moto: upstream's
// rules (each NodePort from the clients, the health check port from the NLB's subnets when the clients' rule does not
// cover it, ICMP 3/4 from each client range) with upstream's descriptions, followed through a port change, the shared
// MTU rule kept while another NLB needs it, and nothing left after deletion; an untagged group is used only while a
// target instance is in it, as upstream does; EC2 nodes an NLB targets by IP keep their rules; a missing MTU rule and
// the rules of a request refused for another writer's duplicate (support/interposer.ts) are made on the next try.
import { describe, expect, it } from 'vitest';
import {
  loadTestPlugin,
  type TestPlugin,
  testNode,
  testPort,
  testService,
} from '../../../packages/wasm-ccm/src/testing/index.ts';
import { builtPlugin } from '../../../lab/plugins/index.ts';
import { type AwsEnv, call, runInstance, tagResource, xmlText } from '../../../lab/peers/index.ts';
import type { Node, Service } from '../../../host/src/abi/index.ts';
import { useAwsPlugin } from './support/plugin.ts';
import { interposeEc2 } from './support/interposer.ts';
import { securityGroupRules } from './support/sg-state.ts';

const CLUSTER = 'aws-nlb-rules';
const NLB = { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' };
let env: AwsEnv;
let plugin: TestPlugin;

useAwsPlugin(
  { cluster: CLUSTER, zones: ['us-east-1a', 'us-east-1b'], instancesPerZone: 1 },
  (started) => ({ env, plugin } = started),
);

const lbName = (svc: Service) => `a${svc.uid.replaceAll('-', '')}`.slice(0, 32);
const ensure = (service: Service, nodes: Node[]) =>
  plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service, nodes });
const remove = (service: Service) => plugin.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service });

/** The group's rules as `<protocol> <from>-<to> from <cidr> (<description>)`, the NLB names as `{<service>}`. */
async function rules(group: string, ...services: Service[]): Promise<string[]> {
  const text = (s: string) => services.reduce((acc, svc) => acc.replaceAll(lbName(svc), `{${svc.name}}`), s);
  const all = await securityGroupRules(env.query, env.seeded.vpcId, { text, port: (p) => p });
  return all[`cluster-vpc/${group}`] ?? [];
}

async function groupId(name: string): Promise<string> {
  const answer = await call(env.query, 'ec2', {
    Action: 'DescribeSecurityGroups',
    'Filter.1.Name': 'group-name',
    'Filter.1.Value.1': name,
  });
  return xmlText(answer, 'groupId');
}

const client = (port: number, cidr: string, svc: string) =>
  `tcp ${port}-${port} from ${cidr} (kubernetes.io/rule/nlb/client={${svc}})`;
const health = (port: number, cidr: string, svc: string) =>
  `tcp ${port}-${port} from ${cidr} (kubernetes.io/rule/nlb/health={${svc}})`;
const mtu = (cidr: string) => `icmp 3-4 from ${cidr} (kubernetes.io/rule/nlb/mtu)`;

describe('aws plugin: NLB rules in the instances security groups', () => {
  it('opens NodePorts, health checks and ICMP as upstream, follows a port change, and revokes all', async () => {
    const nodes = env.seeded.instances.map((i) => testNode({ name: i.privateDnsName }));
    const group = `${CLUSTER}-nodes`;
    const web = testService({ name: 'web', ports: [testPort(80, 30200), testPort(443, 30201)], annotations: NLB });
    // A source range given as an address in its network (upstream keeps the network), and kube-proxy's health check.
    const ranged = testService({
      name: 'ranged',
      ports: [testPort(80, 30210)],
      annotations: NLB,
      loadBalancerSourceRanges: ['10.1.2.3/16'],
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 30211,
    });
    try {
      await ensure(web, nodes);
      await ensure(ranged, nodes);
      // The seeded subnets, one per zone, are the NLB's: its health checks come from their addresses.
      const subnets = ['10.0.1.0/24', '10.0.2.0/24'];
      expect(await rules(group, web, ranged)).toEqual(
        [
          client(30200, '0.0.0.0/0', 'web'),
          client(30201, '0.0.0.0/0', 'web'),
          client(30210, '10.1.0.0/16', 'ranged'),
          ...subnets.map((s) => health(30211, s, 'ranged')),
          mtu('0.0.0.0/0'),
          mtu('10.1.0.0/16'),
        ].sort(),
      );
      // A NodePort change: the old port's rule goes, the new one comes.
      const moved = { ...web, ports: [testPort(80, 30200), testPort(443, 30202)] };
      await ensure(moved, nodes);
      const afterMove = await rules(group, web);
      expect(afterMove).toContain(client(30202, '0.0.0.0/0', 'web'));
      expect(afterMove).not.toContain(client(30201, '0.0.0.0/0', 'web'));
      // The ranged NLB's rules go with it, and so does the MTU rule of its range; web still needs 0.0.0.0/0's.
      await remove(ranged);
      expect(await rules(group, web)).toEqual(
        [client(30200, '0.0.0.0/0', 'web'), client(30202, '0.0.0.0/0', 'web'), mtu('0.0.0.0/0')].sort(),
      );
      await remove(moved);
      expect(await rules(group)).toEqual([]);
    } finally {
      await remove(web);
      await remove(ranged);
    }
  });

  it('puts the rules in an untagged group while a target is in it, and leaves that group alone after', async () => {
    const created = await call(env.query, 'ec2', {
      Action: 'CreateSecurityGroup',
      GroupName: 'plain',
      GroupDescription: 'a group without the cluster tag',
      VpcId: env.seeded.vpcId,
    });
    const inst = await runInstance(env.query, env.seeded.subnetIds[0]!, xmlText(created, 'groupId'));
    await tagResource(env.query, inst.id, { [`kubernetes.io/cluster/${CLUSTER}`]: 'owned' });
    const alone = testNode({ name: inst.id, providerID: `aws:///${inst.zone}/${inst.id}` });
    const tagged = testNode({ name: env.seeded.instances[0]!.privateDnsName });
    const svc = testService({ name: 'plain', ports: [testPort(80, 30220)], annotations: NLB });
    const mine = [client(30220, '0.0.0.0/0', 'plain'), mtu('0.0.0.0/0')].sort();
    try {
      await ensure(svc, [alone]);
      expect(await rules('plain', svc)).toEqual(mine);
      expect(await rules(`${CLUSTER}-nodes`, svc)).toEqual([]);
      // The target moves to the tagged group: the rules follow, and the untagged group keeps what it has (upstream
      // revokes only from groups tagged for the cluster or used by a target).
      await ensure(svc, [tagged]);
      expect(await rules(`${CLUSTER}-nodes`, svc)).toEqual(mine);
      expect(await rules('plain', svc)).toEqual(mine);
      await remove(svc);
      expect(await rules(`${CLUSTER}-nodes`, svc)).toEqual([]);
    } finally {
      await remove(svc);
    }
  });

  it('keeps the rules in the groups of EC2 nodes an NLB targets by IP, and revokes them when none is left', async () => {
    const seeded = env.seeded.instances[0]!;
    const ec2 = testNode({
      name: seeded.privateDnsName,
      providerID: `aws:///${seeded.zone}/${seeded.id}`,
      addresses: [{ type: 'InternalIP', address: seeded.privateIp }],
    });
    // Another provider's node makes the target groups `ip` groups; the EC2 node joins by its address.
    const foreign = testNode({
      name: 'vm-01',
      providerID: 'vsphere://4210a1b2-c3d4-e5f6-0718-293a4b5c6d01',
      addresses: [{ type: 'InternalIP', address: '10.20.0.11' }],
    });
    const svc = testService({ name: 'mixed', ports: [testPort(80, 30250)], annotations: NLB });
    const mine = [client(30250, '0.0.0.0/0', 'mixed'), mtu('0.0.0.0/0')].sort();
    try {
      await ensure(svc, [ec2]);
      expect(await rules(`${CLUSTER}-nodes`, svc)).toEqual(mine);
      await ensure(svc, [ec2, foreign]);
      expect(await rules(`${CLUSTER}-nodes`, svc)).toEqual(mine);
      await ensure(svc, [foreign]);
      expect(await rules(`${CLUSTER}-nodes`, svc)).toEqual([]);
    } finally {
      await remove(svc);
    }
  });

  it('counts a rule of the same port and source under another description as there, and leaves it', async () => {
    const group = `${CLUSTER}-nodes`;
    const groupId = xmlText(
      await call(env.query, 'ec2', {
        Action: 'DescribeSecurityGroups',
        'Filter.1.Name': 'group-name',
        'Filter.1.Value.1': group,
      }),
      'groupId',
    );
    const theirs = {
      Action: 'AuthorizeSecurityGroupIngress',
      GroupId: groupId,
      'IpPermissions.1.IpProtocol': 'tcp',
      'IpPermissions.1.FromPort': '30240',
      'IpPermissions.1.ToPort': '30240',
      'IpPermissions.1.IpRanges.1.CidrIp': '0.0.0.0/0',
      'IpPermissions.1.IpRanges.1.Description': 'the operator',
    };
    await call(env.query, 'ec2', theirs);
    const nodes = [testNode({ name: env.seeded.instances[0]!.privateDnsName })];
    const svc = testService({ name: 'shared', ports: [testPort(80, 30240), testPort(443, 30241)], annotations: NLB });
    try {
      // EC2 would refuse the whole request for the one duplicate: the other port's rule must still come.
      await ensure(svc, nodes);
      expect(await rules(group, svc)).toEqual(
        [
          'tcp 30240-30240 from 0.0.0.0/0 (the operator)',
          client(30241, '0.0.0.0/0', 'shared'),
          mtu('0.0.0.0/0'),
        ].sort(),
      );
      await remove(svc);
      expect(await rules(group, svc)).toEqual(['tcp 30240-30240 from 0.0.0.0/0 (the operator)']);
    } finally {
      await remove(svc);
      await call(env.query, 'ec2', { ...theirs, Action: 'RevokeSecurityGroupIngress' });
    }
  });

  it("reads only the cluster's and the targets' groups, so an account's other groups do not break a sync", async () => {
    // The account's many other groups, scaled down with the answer cap: together they are over it.
    // One at a time: moto's server is not safe for concurrent group creation.
    const others: string[] = [];
    for (let i = 0; i < 160; i++) {
      const made = await call(env.query, 'ec2', {
        Action: 'CreateSecurityGroup',
        GroupName: `other-${i}`,
        GroupDescription: "another team's group",
        VpcId: env.seeded.vpcId,
      });
      others.push(xmlText(made, 'groupId'));
    }
    const cap = 48 * 1024;
    const unfiltered = await call(env.query, 'ec2', { Action: 'DescribeSecurityGroups' });
    expect(unfiltered.length).toBeGreaterThan(cap);
    const capped = await loadTestPlugin(builtPlugin('aws'), {
      cloudConfig: env.cloudConfig,
      clusterName: CLUSTER,
      allowedHosts: env.allowedHosts,
      credentialsFile: env.credentialsFile,
      maxHttpResponseBytes: cap,
    });
    const nodes = [testNode({ name: env.seeded.instances[0]!.privateDnsName })];
    const svc = testService({ name: 'crowded', ports: [testPort(80, 30260)], annotations: NLB });
    try {
      await capped.call('ensureLoadBalancer', { clusterName: CLUSTER, service: svc, nodes });
      expect(await rules(`${CLUSTER}-nodes`, svc)).toEqual(
        [client(30260, '0.0.0.0/0', 'crowded'), mtu('0.0.0.0/0')].sort(),
      );
      await capped.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service: svc });
      expect(await rules(`${CLUSTER}-nodes`, svc)).toEqual([]);
    } finally {
      await capped.close();
      await remove(svc);
      for (const id of others) await call(env.query, 'ec2', { Action: 'DeleteSecurityGroup', GroupId: id });
    }
  });

  it('revokes a stale rule from a group with the legacy KubernetesCluster tag of this cluster only', async () => {
    const svc = testService({ name: 'legacy', ports: [testPort(80, 30270)], annotations: NLB });
    const stale = (group: string) => ({
      Action: 'AuthorizeSecurityGroupIngress',
      GroupId: group,
      'IpPermissions.1.IpProtocol': 'tcp',
      'IpPermissions.1.FromPort': '30270',
      'IpPermissions.1.ToPort': '30270',
      'IpPermissions.1.IpRanges.1.CidrIp': '0.0.0.0/0',
      'IpPermissions.1.IpRanges.1.Description': `kubernetes.io/rule/nlb/client=${lbName(svc)}`,
    });
    const groups: Record<string, string> = {};
    for (const [name, cluster] of [
      ['legacy-mine', CLUSTER],
      ['legacy-theirs', 'another-cluster'],
    ] as const) {
      const made = await call(env.query, 'ec2', {
        Action: 'CreateSecurityGroup',
        GroupName: name,
        GroupDescription: 'a group with the legacy cluster tag',
        VpcId: env.seeded.vpcId,
      });
      groups[name] = xmlText(made, 'groupId');
      await tagResource(env.query, groups[name], { KubernetesCluster: cluster });
      await call(env.query, 'ec2', stale(groups[name]));
    }
    const nodes = [testNode({ name: env.seeded.instances[0]!.privateDnsName })];
    try {
      await ensure(svc, nodes);
      // The positive sign: the target's group has the rule; the legacy-tagged group of this cluster lost it.
      expect(await rules(`${CLUSTER}-nodes`, svc)).toContain(client(30270, '0.0.0.0/0', 'legacy'));
      expect(await rules('legacy-mine', svc)).toEqual([]);
      expect(await rules('legacy-theirs', svc)).toEqual([client(30270, '0.0.0.0/0', 'legacy')]);
    } finally {
      await remove(svc);
      for (const id of Object.values(groups))
        await call(env.query, 'ec2', { Action: 'DeleteSecurityGroup', GroupId: id });
    }
  });

  it('makes a missing MTU rule on the next sync, with the client rules unchanged', async () => {
    const svc = testService({ name: 'mtu', ports: [testPort(80, 30280)], annotations: NLB });
    const nodes = [testNode({ name: env.seeded.instances[0]!.privateDnsName })];
    const mine = [client(30280, '0.0.0.0/0', 'mtu'), mtu('0.0.0.0/0')].sort();
    try {
      await ensure(svc, nodes);
      expect(await rules(`${CLUSTER}-nodes`, svc)).toEqual(mine);
      // As if the MTU authorize had failed after the client rule was made.
      await call(env.query, 'ec2', {
        Action: 'RevokeSecurityGroupIngress',
        GroupId: await groupId(`${CLUSTER}-nodes`),
        'IpPermissions.1.IpProtocol': 'icmp',
        'IpPermissions.1.FromPort': '3',
        'IpPermissions.1.ToPort': '4',
        'IpPermissions.1.IpRanges.1.CidrIp': '0.0.0.0/0',
      });
      expect(await rules(`${CLUSTER}-nodes`, svc)).toEqual([client(30280, '0.0.0.0/0', 'mtu')]);
      await ensure(svc, nodes);
      expect(await rules(`${CLUSTER}-nodes`, svc)).toEqual(mine);
    } finally {
      await remove(svc);
    }
  });

  it('makes every rule of a request EC2 refused for one rule another writer made first', async () => {
    const group = await groupId(`${CLUSTER}-nodes`);
    let raced = 0;
    // Before the plugin's first authorize reaches moto, another writer makes the request's first rule.
    const interposed = await interposeEc2(env, async (form) => {
      if (raced > 0 || form.get('Action') !== 'AuthorizeSecurityGroupIngress' || form.get('GroupId') !== group) return;
      raced++;
      const first = [...form].filter(([key]) => key.startsWith('IpPermissions.1.'));
      await call(env.query, 'ec2', {
        Action: 'AuthorizeSecurityGroupIngress',
        GroupId: group,
        ...Object.fromEntries(first),
      });
    });
    const racing = await loadTestPlugin(builtPlugin('aws'), { ...interposed, clusterName: CLUSTER });
    const nodes = [testNode({ name: env.seeded.instances[0]!.privateDnsName })];
    const svc = testService({ name: 'race', ports: [testPort(80, 30290), testPort(81, 30291)], annotations: NLB });
    try {
      await racing.call('ensureLoadBalancer', { clusterName: CLUSTER, service: svc, nodes });
      expect(raced).toBe(1);
      expect(await rules(`${CLUSTER}-nodes`, svc)).toEqual(
        [client(30290, '0.0.0.0/0', 'race'), client(30291, '0.0.0.0/0', 'race'), mtu('0.0.0.0/0')].sort(),
      );
    } finally {
      await racing.close();
      await interposed.close();
      await remove(svc);
    }
  });

  it('opens and revokes nothing with [Global] DisableSecurityGroupIngress, as upstream', async () => {
    const off = await loadTestPlugin(builtPlugin('aws'), {
      cloudConfig: env.cloudConfig.replace('[Global]', '[Global]\nDisableSecurityGroupIngress = true'),
      clusterName: CLUSTER,
      allowedHosts: env.allowedHosts,
      credentialsFile: env.credentialsFile,
    });
    const nodes = [testNode({ name: env.seeded.instances[0]!.privateDnsName })];
    const svc = testService({ name: 'open', ports: [testPort(80, 30230)], annotations: NLB });
    try {
      await off.call('ensureLoadBalancer', { clusterName: CLUSTER, service: svc, nodes });
      // The positive sign: the NLB is there with its target; the group has no rule of it.
      const lb = await call(env.query, 'elasticloadbalancing', {
        Action: 'DescribeLoadBalancers',
        'Names.member.1': lbName(svc),
      });
      expect(xmlText(lb, 'LoadBalancerName')).toBe(lbName(svc));
      expect(await rules(`${CLUSTER}-nodes`, svc)).toEqual([]);
      // The source ranges serve only the rules: a dual-stack Service's IPv6 range is no reason to refuse it, on
      // ensure nor on update.
      const dual = { ...svc, loadBalancerSourceRanges: ['0.0.0.0/0', '::/0'] };
      await off.call('ensureLoadBalancer', { clusterName: CLUSTER, service: dual, nodes });
      await off.call('updateLoadBalancer', { clusterName: CLUSTER, service: dual, nodes });
      // A rule the plugin would revoke stays: the groups are the cluster's to manage.
      await ensure(svc, nodes);
      expect(await rules(`${CLUSTER}-nodes`, svc)).toContain(client(30230, '0.0.0.0/0', 'open'));
      await off.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service: svc });
      expect(await rules(`${CLUSTER}-nodes`, svc)).toContain(client(30230, '0.0.0.0/0', 'open'));
    } finally {
      await off.close();
      await remove(svc);
    }
    expect(await rules(`${CLUSTER}-nodes`)).toEqual([]);
  });
});
