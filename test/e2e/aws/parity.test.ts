// The AWS plugin side by side with cloud-provider-aws: the same scenario (test/e2e/aws/support/parity-run.ts) runs
// once with upstream's aws-cloud-controller-manager and once with wasm-ccm + plugins/aws, each against a fresh moto
// seeded identically, and every normalized field (Nodes, the NLB Services, Events reasons, moto's NLBs, listeners,
// target groups, targets, tags, security group rules, orphans after deletion) must be equal or on
// support/allow-list.ts (empty), which plugins/aws/README.md ("Where it differs from cloud-provider-aws") explains
// too; upstream reaches moto through support/moto-corrections.ts. Then the handover (support/nlb-handover.ts):
// upstream makes two NLBs and their rules, stops, and wasm-ccm keeps them as they are and deletes them to nothing.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  adminKubeConfig,
  uniqueName,
  applyManifests,
  ccmIdentity,
  loadManifests,
} from '../../../lab/controlplane/index.ts';
import { diffSnapshots, differencesText, snapshotText } from '../../support/parity/diff.ts';
import { AWS_ALLOWED_DIFFERENCES } from './support/allow-list.ts';
import { runNlbHandover } from './support/nlb-handover.ts';
import { PARITY_CLUSTER, type ParityContext, type ParityResult, runAwsParity } from './support/parity-run.ts';

describe('the AWS plugin beside cloud-provider-aws, against the same moto', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const namespace = uniqueName('e2e-aws-parity');
  let ctx: ParityContext;

  beforeAll(async () => {
    await applyManifests(admin, loadManifests('rbac.yaml'));
    const { token } = await ccmIdentity(info, admin);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const base = 30_000 + Math.floor(Math.random() * 2_700);
    // Two per Service (three), and the Local Service's health check NodePort.
    ctx = { info, admin, token, namespace, nodePorts: Array.from({ length: 7 }, (_, i) => base + i) };
  });

  afterAll(async () => {
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  });

  it('initializes Nodes and runs NLBs as upstream does, and both leave no orphans', async () => {
    // One after the other: both would act on the same Nodes and Service.
    const upstream: ParityResult = await runAwsParity('upstream', ctx);
    const wasm: ParityResult = await runAwsParity('wasm-ccm', ctx);
    if (process.env.PARITY_DUMP) {
      console.log(`upstream:\n${snapshotText(upstream.snapshot)}\nwasm-ccm:\n${snapshotText(wasm.snapshot)}`);
    }
    expect(upstream.orphans).toEqual([]);
    expect(wasm.orphans).toEqual([]);
    // moto's scheme gap was met and corrected: upstream sends no Scheme for the two internet-facing NLBs.
    expect(upstream.schemeCorrections).toBe(2);
    // The snapshots hold what is compared: upstream's NLB rules in the nodes' group, none left after deletion.
    const nodesGroup = `cluster-vpc~1${PARITY_CLUSTER}-nodes`;
    const rules = JSON.parse(upstream.snapshot.get(`security-groups/${nodesGroup}/#order`) ?? '[]') as string[];
    expect(rules).toContain(
      'tcp nodePort:web:80-nodePort:web:80 from 0.0.0.0/0 (kubernetes.io/rule/nlb/client={nlb:web})',
    );
    expect(rules).toContain('icmp 3-4 from 0.0.0.0/0 (kubernetes.io/rule/nlb/mtu)');
    expect(upstream.snapshot.get(`deleted/security-groups/${nodesGroup}`)).toBe('[]');
    const { failing, allowed } = diffSnapshots(upstream.snapshot, wasm.snapshot, AWS_ALLOWED_DIFFERENCES);
    if (allowed.length > 0) console.log(`aws parity: allowed differences:\n  ${allowed.join('\n  ')}`);
    expect(failing, differencesText(failing)).toEqual([]);
  }, 240_000);

  it('takes over the NLBs upstream made: the same NLBs and rules, none added twice, none left after deletion', async () => {
    const { before, after, left } = await runNlbHandover(ctx);
    const nodes = `cluster-vpc/${PARITY_CLUSTER}-nodes`;
    const client = (svc: string, port: string, cidr: string) =>
      `tcp nodePort:${svc}:${port}-nodePort:${svc}:${port} from ${cidr} (kubernetes.io/rule/nlb/client={nlb:${svc}})`;
    const mtu = (cidr: string) => `icmp 3-4 from ${cidr} (kubernetes.io/rule/nlb/mtu)`;
    const rules = before.rules[nodes] ?? [];
    // What upstream made: each NodePort from the clients, ICMP 3/4 from each client range, and for the Service
    // with source ranges the health check port from the NLB's subnets (the client rules do not cover it).
    expect(rules).toEqual(
      expect.arrayContaining([
        client('web', '80', '0.0.0.0/0'),
        client('web', '443', '0.0.0.0/0'),
        ...['10.1.0.0/16', '192.168.0.0/24'].flatMap((c) => [client('secure', '80', c), client('secure', '443', c)]),
        mtu('0.0.0.0/0'),
        mtu('10.1.0.0/16'),
        mtu('192.168.0.0/24'),
      ]),
    );
    const health = rules.filter((r) => r.includes('kubernetes.io/rule/nlb/health={nlb:secure}'));
    expect(health.length).toBeGreaterThan(0);
    expect(rules.filter((r) => r.includes('{nlb:web}'))).toHaveLength(2);
    // wasm-ccm registered the fourth node (its positive sign) and changed nothing else: the same NLBs, DNS names
    // and groups, and not one rule added (under another description) or revoked.
    expect(after.hostnames).toEqual(before.hostnames);
    expect(after.lbNames).toEqual(before.lbNames);
    expect(after.lbNames).toEqual(['{nlb:secure}', '{nlb:web}']);
    for (const svc of ['web', 'secure']) {
      const withoutTargets = (lb: (typeof before.lbs)[string] | undefined) => ({
        ...lb,
        targetGroups: lb?.targetGroups.map((tg) => ({ ...tg, targets: [] })),
      });
      expect(withoutTargets(after.lbs[svc])).toEqual(withoutTargets(before.lbs[svc]));
      for (const tg of after.lbs[svc]?.targetGroups ?? []) expect(tg.targets).toHaveLength(4);
    }
    expect(after.rules).toEqual(before.rules);
    // Deletion under wasm-ccm: no load balancer, target group or listener, and no rule in any group.
    expect(left.inventory).toEqual([]);
    expect(left.rules[nodes]).toEqual([]);
  }, 240_000);
});
