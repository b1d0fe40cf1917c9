// The AWS plugin's Classic ELB (a Service without aws-load-balancer-type) through the host's runtime against moto with
// signature checks on: listeners per port, upstream's health check, the ELB's own security group and the rule in the
// nodes' group, instances following the node set, port changes, the Classic-ELB annotations, [Global]
// ElbSecurityGroup, refusals by name, and a deletion that leaves no ELB, no group and no rule.
import { describe, expect, it } from 'vitest';
import {
  loadTestPlugin,
  type TestPlugin,
  testNode,
  testPort,
  testService,
} from '../../../packages/wasm-ccm/src/testing/index.ts';
import { builtPlugin } from '../../../lab/plugins/index.ts';
import { type AwsEnv, call, elbInventory, tagResource, xmlText } from '../../../lab/peers/index.ts';
import type { Service } from '../../../packages/wasm-ccm/src/testing/index.ts';
import { classicNames, classicState, groupRules } from './support/clb-state.ts';
import type { Normalizer } from './support/elb-state.ts';
import { useAwsPlugin } from './support/plugin.ts';
import { securityGroupRules } from './support/sg-state.ts';

const CLUSTER = 'aws-clb-test';
const A = 'service.beta.kubernetes.io/aws-load-balancer-';
let env: AwsEnv;
let plugin: TestPlugin;

useAwsPlugin({ cluster: CLUSTER }, (started) => ({ env, plugin } = started));

const instance = (i: number) => env.seeded.instances[i]!;
const nodesOf = (...idx: number[]) => idx.map((i) => testNode({ name: instance(i).privateDnsName }));
const lbName = (svc: Service) => `a${svc.uid.replaceAll('-', '')}`.slice(0, 32);

function norm(svc: Service): Normalizer {
  const ids: Array<[string, string]> = [
    ...env.seeded.instances.map((inst, i): [string, string] => [inst.id, `{node-${i}}`]),
    [env.seeded.vpcId, '{vpc}'],
    ...env.seeded.subnetIds.map((s, i): [string, string] => [s, `{subnet-${i}}`]),
    [lbName(svc), '{lb}'],
  ];
  const ports = new Map(svc.ports.map((p) => [String(p.nodePort), `nodePort:${p.port}`]));
  return {
    text: (s) => ids.reduce((acc, [id, name]) => acc.replaceAll(id, name), s),
    port: (p) => ports.get(p) ?? p,
  };
}

const ensure = (service: Service, nodes = nodesOf(0, 1, 2)) =>
  plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service, nodes });
const update = (service: Service, nodes: ReturnType<typeof nodesOf>) =>
  plugin.call('updateLoadBalancer', { clusterName: CLUSTER, service, nodes });
const remove = (service: Service) => plugin.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service });
const groups = (svc: Service) => groupRules(env.query, env.seeded.vpcId, norm(svc));

describe('aws plugin: LoadBalancer (Classic ELB, the default)', () => {
  const web = testService({ name: 'web', namespace: 'shop', ports: [testPort(80, 30080), testPort(443, 30443)] });

  it('makes a Classic ELB with a listener per port, its own security group and the nodes open to it', async () => {
    const status = await ensure(web);
    expect(status.status.ingress[0]?.hostname).toMatch(/^a[0-9a-f]+(-\w+)?\.us-east-1\.elb\.amazonaws\.com$/);
    expect(await classicState(env.query, lbName(web), norm(web))).toEqual({
      name: '{lb}',
      dnsName: '{lb}.us-east-1.elb.amazonaws.com',
      scheme: 'internet-facing',
      listeners: ['TCP:443 -> TCP:nodePort:443', 'TCP:80 -> TCP:nodePort:80'],
      listenerPolicies: {},
      backendPolicies: {},
      policies: {},
      healthCheck: {
        target: 'TCP:nodePort:80',
        interval: '10',
        timeout: '5',
        healthyThreshold: '2',
        unhealthyThreshold: '6',
      },
      instances: ['{node-0}', '{node-1}', '{node-2}'],
      securityGroups: ['k8s-elb-{lb}'],
      subnets: ['{subnet-0}', '{subnet-1}'],
      tags: { [`kubernetes.io/cluster/${CLUSTER}`]: 'owned', 'kubernetes.io/service-name': 'shop/web' },
      attributes: expect.objectContaining({ idleTimeout: '60', connectionDraining: 'false', crossZone: 'false' }),
    });
    const rules = await groups(web);
    expect(rules['cluster-vpc/k8s-elb-{lb}']).toEqual([
      'icmp 3-4 from 0.0.0.0/0',
      'tcp 443-443 from 0.0.0.0/0',
      'tcp 80-80 from 0.0.0.0/0',
    ]);
    expect(rules[`cluster-vpc/${CLUSTER}-nodes`]).toEqual(['-1 - from group k8s-elb-{lb}']);
    // No NLB: the default is a Classic ELB.
    expect((await elbInventory(env.query)).loadBalancers).toEqual([]);
    // Idempotent, and getLoadBalancer finds it.
    expect(await ensure(web)).toEqual(status);
    expect(await plugin.call('getLoadBalancer', { clusterName: CLUSTER, service: web })).toEqual({
      exists: true,
      status: status.status,
    });
  });

  it('follows the node set: instances registered and deregistered', async () => {
    await update(web, nodesOf(0, 1, 2, 3));
    expect((await classicState(env.query, lbName(web), norm(web)))?.instances).toEqual([
      '{node-0}',
      '{node-1}',
      '{node-2}',
      '{node-3}',
    ]);
    await update(web, nodesOf(1));
    expect((await classicState(env.query, lbName(web), norm(web)))?.instances).toEqual(['{node-1}']);
    // The nodes' group keeps its one rule while any node is a target.
    expect((await groups(web))[`cluster-vpc/${CLUSTER}-nodes`]).toEqual(['-1 - from group k8s-elb-{lb}']);
  });

  it('follows a port change: listeners, health check and the group rules', async () => {
    const changed = { ...web, ports: [testPort(8080, 30081), testPort(443, 30443)] };
    await ensure(changed, nodesOf(0, 1));
    const state = await classicState(env.query, lbName(web), norm(changed));
    expect(state?.listeners).toEqual(['TCP:443 -> TCP:nodePort:443', 'TCP:8080 -> TCP:nodePort:8080']);
    expect(state?.healthCheck.target).toBe('TCP:nodePort:8080');
    expect((await groups(changed))['cluster-vpc/k8s-elb-{lb}']).toEqual([
      'icmp 3-4 from 0.0.0.0/0',
      'tcp 443-443 from 0.0.0.0/0',
      'tcp 8080-8080 from 0.0.0.0/0',
    ]);
  });

  it('deletes the ELB, the rule in the nodes group and the ELB group, and a second delete is a no-op', async () => {
    await remove(web);
    expect(await classicNames(env.query)).toEqual([]);
    const rules = await groups(web);
    expect(Object.keys(rules).filter((g) => g.includes('k8s-elb-'))).toEqual([]);
    expect(rules[`cluster-vpc/${CLUSTER}-nodes`]).toEqual([]);
    await remove(web);
    expect(await plugin.call('getLoadBalancer', { clusterName: CLUSTER, service: web })).toMatchObject({
      exists: false,
    });
  });
});

describe('aws plugin: Classic ELB with [Global] DisableSecurityGroupIngress', () => {
  it("makes the ELB's own group but no rule in the nodes' group, as upstream", async () => {
    const off = await loadTestPlugin(builtPlugin('aws'), {
      cloudConfig: env.cloudConfig.replace('[Global]', '[Global]\nDisableSecurityGroupIngress = true'),
      clusterName: CLUSTER,
      allowedHosts: env.allowedHosts,
      credentialsFile: env.credentialsFile,
    });
    const svc = testService({ name: 'closed', ports: [testPort(80, 30180)] });
    try {
      await off.call('ensureLoadBalancer', { clusterName: CLUSTER, service: svc, nodes: nodesOf(0, 1) });
      // The positive sign: the ELB holds its instances behind its own group; the nodes' group names no ELB group.
      const state = await classicState(env.query, lbName(svc), norm(svc));
      expect(state?.instances).toEqual(['{node-0}', '{node-1}']);
      expect(state?.securityGroups).toEqual(['k8s-elb-{lb}']);
      expect((await groups(svc))[`cluster-vpc/${CLUSTER}-nodes`]).toEqual([]);
      await off.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service: svc });
      expect(await classicNames(env.query)).toEqual([]);
    } finally {
      await off.close();
    }
  });
});

describe('aws plugin: Classic ELB with [Global] ElbSecurityGroup', () => {
  it('gives every ELB that group instead of its own, and never changes or deletes it, as upstream', async () => {
    const made = async (name: string) =>
      xmlText(
        await call(env.query, 'ec2', {
          Action: 'CreateSecurityGroup',
          GroupName: name,
          GroupDescription: `the operator's ${name}`,
          VpcId: env.seeded.vpcId,
        }),
        'groupId',
      );
    // Tagged for the cluster, as an operator's group may be: still not the ELB's to delete.
    const shared = await made('shared-elb');
    await tagResource(env.query, shared, { [`kubernetes.io/cluster/${CLUSTER}`]: 'owned' });
    const extra = await made('extra-elb');
    const operatorRule = {
      GroupId: shared,
      IpProtocol: 'tcp',
      FromPort: '8080',
      ToPort: '8080',
      CidrIp: '10.9.0.0/16',
    };
    await call(env.query, 'ec2', { Action: 'AuthorizeSecurityGroupIngress', ...operatorRule });
    const configured = await loadTestPlugin(builtPlugin('aws'), {
      cloudConfig: env.cloudConfig.replace('[Global]', `[Global]\nElbSecurityGroup = ${shared}`),
      clusterName: CLUSTER,
      allowedHosts: env.allowedHosts,
      credentialsFile: env.credentialsFile,
    });
    const svc = testService({
      name: 'shared',
      ports: [testPort(80, 30190)],
      annotations: { [`${A}extra-security-groups`]: extra },
    });
    try {
      await configured.call('ensureLoadBalancer', { clusterName: CLUSTER, service: svc, nodes: nodesOf(0) });
      expect((await classicState(env.query, lbName(svc), norm(svc)))?.securityGroups).toEqual([
        'shared-elb',
        'extra-elb',
      ]);
      const rules = await groups(svc);
      expect(rules['cluster-vpc/k8s-elb-{lb}']).toBeUndefined();
      expect(rules['cluster-vpc/shared-elb']).toEqual(['tcp 8080-8080 from 10.9.0.0/16']);
      expect(rules[`cluster-vpc/${CLUSTER}-nodes`]).toEqual(['-1 - from group shared-elb']);
      await configured.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service: svc });
      expect(await classicNames(env.query)).toEqual([]);
      const after = await groups(svc);
      expect(after['cluster-vpc/shared-elb']).toEqual(['tcp 8080-8080 from 10.9.0.0/16']);
      expect(after['cluster-vpc/extra-elb']).toEqual([]);
      expect(after[`cluster-vpc/${CLUSTER}-nodes`]).toEqual([]);
    } finally {
      await configured.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service: svc });
      await configured.close();
      for (const id of [shared, extra]) await call(env.query, 'ec2', { Action: 'DeleteSecurityGroup', GroupId: id });
    }
  });
});

describe('aws plugin: Classic ELB annotations', () => {
  it('honours internal, source ranges, draining, idle timeout, cross-zone, tags and health check annotations', async () => {
    const svc = testService({
      name: 'api',
      namespace: 'shop',
      ports: [testPort(80, 30090)],
      // A range with host bits is its network, as upstream's source range set holds it.
      loadBalancerSourceRanges: ['10.1.2.3/16', '192.168.0.0/24'],
      annotations: {
        [`${A}internal`]: 'true',
        [`${A}connection-draining-enabled`]: 'true',
        [`${A}connection-draining-timeout`]: '120',
        [`${A}connection-idle-timeout`]: '300',
        [`${A}cross-zone-load-balancing-enabled`]: 'true',
        [`${A}additional-resource-tags`]: 'team=api,tier',
        [`${A}healthcheck-protocol`]: 'HTTP',
        [`${A}healthcheck-path`]: '/ready',
        [`${A}healthcheck-interval`]: '20',
        [`${A}healthcheck-unhealthy-threshold`]: '3',
      },
    });
    await ensure(svc);
    const state = await classicState(env.query, lbName(svc), norm(svc));
    expect(state).toMatchObject({
      scheme: 'internal',
      healthCheck: {
        target: 'HTTP:nodePort:80/ready',
        interval: '20',
        timeout: '5',
        healthyThreshold: '2',
        unhealthyThreshold: '3',
      },
      tags: { team: 'api', tier: '', 'kubernetes.io/service-name': 'shop/api' },
      attributes: {
        connectionDraining: 'true',
        connectionDrainingTimeout: '120',
        idleTimeout: '300',
        crossZone: 'true',
      },
    });
    expect((await groups(svc))['cluster-vpc/k8s-elb-{lb}']).toEqual([
      'icmp 3-4 from 10.1.0.0/16',
      'icmp 3-4 from 192.168.0.0/24',
      'tcp 80-80 from 10.1.0.0/16',
      'tcp 80-80 from 192.168.0.0/24',
    ]);
    await remove(svc);
    expect(await classicNames(env.query)).toEqual([]);
  });

  it('refuses an NLB annotation or a bad value, naming it, and creates nothing', async () => {
    for (const [key, value] of [
      [`${A}proxy-protocol`, 'true'],
      [`${A}backend-protocol`, 'grpc'],
      [`${A}target-group-attributes`, 'preserve_client_ip.enabled=true'],
      [`${A}connection-idle-timeout`, 'long'],
    ] as const) {
      const svc = testService({ name: 'refused', ports: [testPort(80, 30091)], annotations: { [key]: value } });
      await expect(ensure(svc)).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining(key) });
    }
    const udp = testService({ name: 'udp', ports: [testPort(53, 30092, { protocol: 'UDP' })] });
    await expect(ensure(udp)).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining('UDP') });
    const sticky = testService({ name: 'sticky', sessionAffinity: 'ClientIP' });
    await expect(ensure(sticky)).rejects.toMatchObject({
      code: 'Invalid',
      message: expect.stringContaining('affinity'),
    });
    expect(await classicNames(env.query)).toEqual([]);
    const rules = await securityGroupRules(env.query, env.seeded.vpcId, { text: (s) => s, port: (p) => p });
    expect(Object.keys(rules).filter((g) => g.includes('k8s-elb-'))).toEqual([]);
  });
});
