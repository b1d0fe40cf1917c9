// The AWS plugin's Classic ELB annotations through the host's runtime against moto with signature checks on: TLS
// listeners with an IAM server certificate, an HTTPS back end, the SSL negotiation and proxy protocol policies, the
// Service's own and extra security groups and the subnets annotation; a second ensure that sends no change (moto's
// recorder); then the annotations changed (proxy protocol off, another subnet, the extra group gone) and deletion,
// which keeps the groups the Service brought. moto answers a listener's InstanceProtocol as its Protocol
// (support/moto-corrections.ts), so the back end here is HTTPS behind HTTPS, which moto answers as AWS does.
import { describe, expect, it } from 'vitest';
import { type TestPlugin, testNode, testPort, testService } from '../../../packages/wasm-ccm/src/testing/index.ts';
import type { AwsEnv } from '../../../lab/peers/index.ts';
import type { Service } from '../../../packages/wasm-ccm/src/testing/index.ts';
import { makeGroup, uploadCertificate } from './support/classic-tls.ts';
import { classicNames, classicState, groupRules } from './support/clb-state.ts';
import type { Normalizer } from './support/elb-state.ts';
import { useAwsPlugin } from './support/plugin.ts';

const CLUSTER = 'aws-clb-tls';
const A = 'service.beta.kubernetes.io/aws-load-balancer-';
const POLICY = 'ELBSecurityPolicy-TLS-1-2-2017-01';
let env: AwsEnv;
let plugin: TestPlugin;

useAwsPlugin({ cluster: CLUSTER, moto: { recordRequests: true } }, (started) => ({ env, plugin } = started));

const lbName = (svc: Service) => `a${svc.uid.replaceAll('-', '')}`.slice(0, 32);
const nodes = () => [0, 1].map((i) => testNode({ name: env.seeded.instances[i]!.privateDnsName }));
const ensure = (service: Service) =>
  plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service, nodes: nodes() });

function norm(svc: Service): Normalizer {
  const ids: Array<[string, string]> = [
    ...env.seeded.instances.map((inst, i): [string, string] => [inst.id, `{node-${i}}`]),
    ...env.seeded.subnetIds.map((s, i): [string, string] => [s, `{subnet-${i}}`]),
    [lbName(svc), '{lb}'],
  ];
  const ports = new Map(svc.ports.map((p) => [String(p.nodePort), `nodePort:${p.port}`]));
  return { text: (s) => ids.reduce((acc, [id, name]) => acc.replaceAll(id, name), s), port: (p) => ports.get(p) ?? p };
}

/** The actions moto received from request `from` on that change something (not Describe...). */
function changesSince(from: number): string[] {
  return env.moto
    .recorded()
    .slice(from)
    .map((r) => new URLSearchParams(r.body).get('Action') ?? '')
    .filter((action) => !action.startsWith('Describe'));
}

describe('aws plugin: Classic ELB listener, policy, security group and subnet annotations', () => {
  it('makes them, keeps them with no change on a second ensure, follows changes, and keeps brought groups', async () => {
    const cert = await uploadCertificate(env);
    const byo = await makeGroup(env, 'byo', '443');
    const extra = await makeGroup(env, 'extra', '8443');
    const annotations: Record<string, string> = {
      [`${A}ssl-cert`]: cert,
      [`${A}ssl-ports`]: '443',
      [`${A}backend-protocol`]: 'https',
      [`${A}ssl-negotiation-policy`]: POLICY,
      [`${A}proxy-protocol`]: '*',
      [`${A}security-groups`]: byo,
      [`${A}extra-security-groups`]: extra,
      [`${A}subnets`]: env.seeded.subnetIds[1]!,
    };
    const ports = [testPort(443, 30443, { name: 'https' }), testPort(80, 30080, { name: 'http' })];
    const svc = testService({ name: 'tls', namespace: 'shop', ports, annotations });
    await ensure(svc);
    expect(await classicState(env.query, lbName(svc), norm(svc))).toMatchObject({
      listeners: [`HTTPS:443 -> HTTPS:nodePort:443 cert=${cert}`, 'TCP:80 -> TCP:nodePort:80'],
      listenerPolicies: { '443': [`k8s-SSLNegotiationPolicy-${POLICY}`] },
      backendPolicies: { 'nodePort:443': ['k8s-proxyprotocol-enabled'], 'nodePort:80': ['k8s-proxyprotocol-enabled'] },
      policies: {
        'k8s-proxyprotocol-enabled': 'ProxyProtocolPolicyType ProxyProtocol=true',
        [`k8s-SSLNegotiationPolicy-${POLICY}`]: `SSLNegotiationPolicyType Reference-Security-Policy=${POLICY}`,
      },
      // An HTTPS back end is checked over SSL, as upstream checks it.
      healthCheck: { target: 'SSL:nodePort:443' },
      securityGroups: ['byo', 'extra'],
      subnets: ['{subnet-1}'],
      instances: ['{node-0}', '{node-1}'],
    });
    const rules = await groupRules(env.query, env.seeded.vpcId, norm(svc));
    expect(rules[`cluster-vpc/${CLUSTER}-nodes`]).toEqual(['-1 - from group byo']);
    expect(Object.keys(rules).filter((g) => g.includes('k8s-elb-'))).toEqual([]);

    const before = env.moto.recordedCount();
    await ensure(svc);
    // The recorder saw the second ensure (its Describe calls), and nothing else.
    expect(env.moto.recordedCount()).toBeGreaterThan(before);
    expect(changesSince(before)).toEqual([]);

    const changed = testService({
      ...svc,
      annotations: { ...annotations, [`${A}proxy-protocol`]: '', [`${A}subnets`]: env.seeded.subnetIds[0]! },
    });
    delete changed.annotations[`${A}extra-security-groups`];
    await ensure(changed);
    expect(await classicState(env.query, lbName(svc), norm(svc))).toMatchObject({
      backendPolicies: {},
      securityGroups: ['byo'],
      subnets: ['{subnet-0}'],
    });

    await plugin.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service: changed });
    expect(await classicNames(env.query)).toEqual([]);
    const after = await groupRules(env.query, env.seeded.vpcId, norm(svc));
    expect(after[`cluster-vpc/${CLUSTER}-nodes`]).toEqual([]);
    expect(after['cluster-vpc/byo']).toEqual(['tcp 443-443 from 203.0.113.0/24']);
    expect(after['cluster-vpc/extra']).toEqual(['tcp 8443-8443 from 203.0.113.0/24']);
  });
});
