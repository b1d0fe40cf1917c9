// wasm-ccm as a real process running the AWS plugin against moto with signature checks on (every request signed by
// the host's broker from awsSigV4 entries): kwok Nodes (registered as a kubelet with --cloud-provider=external
// registers, kept Ready by kwok) named after the instances' private DNS names are initialized with AWS providerIDs, labels and addresses; a LoadBalancer Service gets its NLB
// hostname and follows the node set; deletion leaves nothing in ELBv2; pod CIDRs get routes in the tagged table; a
// terminated instance's NotReady Node is deleted and a stopped one's tainted.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, setInstanceState, xmlTexts, type AwsEnv, awsPluginArgs, startAwsEnv } from '../../../lab/peers/index.ts';
import { eventually } from '../../../lab/process/index.ts';
import {
  CCMProcess,
  deleteNodes,
  hasTaint,
  kubeletNode,
  setReady,
  SHUTDOWN_TAINT_KEY,
  UNINITIALIZED_TAINT,
} from '../../../lab/ccm/index.ts';
import {
  KWOK_ANNOTATION,
  KWOK_ANNOTATION_VALUE,
  startKwok,
  adminKubeConfig,
  uniqueName,
  applyManifests,
  ccmIdentity,
  loadManifests,
} from '../../../lab/controlplane/index.ts';
import type { ManagedProcess } from '../../../lab/process/index.ts';
import { deleteAllServices, patchNode } from '../service/support/helpers.ts';

const CLUSTER = 'aws-e2e';
// A range no other test file uses: only our Nodes' pod CIDRs are routed.
const CLUSTER_CIDR = '10.213.0.0/16';
const EXCLUDE_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';

describe('wasm-ccm with the AWS plugin against moto', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const namespace = uniqueName('e2e-aws');
  let env: AwsEnv;
  let ccm: CCMProcess;
  let kwok: ManagedProcess;
  const nodeNames: string[] = [];
  const instance = (i: number) => env.seeded.instances[i]!;

  beforeAll(async () => {
    await applyManifests(admin, loadManifests('rbac.yaml'));
    const { token } = await ccmIdentity(info, admin);
    env = await startAwsEnv({ cluster: CLUSTER, instancesPerZone: 3 });
    // kwok's node IPs come from a range moto does not use, so they cannot be mistaken for the instances'.
    kwok = startKwok({
      kubeconfigPath: info.kubeconfigPath,
      logDir: mkdtempSync(join(info.dir, 'kwok-aws-')),
      cidr: '10.254.0.0/16',
    });
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    ccm = new CCMProcess({
      info,
      token,
      args: [
        ...awsPluginArgs(env),
        `--cluster-name=${CLUSTER}`,
        `--cluster-cidr=${CLUSTER_CIDR}`,
        '--route-reconciliation-period=1s',
        '--node-monitor-period=1s',
        // kwok's first status carries an InternalIP of its own: the CCM puts the cloud's back within a second.
        '--node-status-update-frequency=1s',
      ],
    });
    await ccm.ready();
    // Four of the six instances become Nodes, each with a pod CIDR (as the node IPAM controller assigns them).
    for (const i of [0, 1, 3, 4]) {
      const name = instance(i).privateDnsName;
      nodeNames.push(name);
      const body = kubeletNode(name, { annotations: { [KWOK_ANNOTATION]: KWOK_ANNOTATION_VALUE } });
      body.spec = { ...body.spec, podCIDR: `10.213.${i}.0/24`, podCIDRs: [`10.213.${i}.0/24`] };
      await core.createNode({ body });
    }
  }, 180_000);

  afterAll(async () => {
    await deleteAllServices(core, namespace).catch(() => undefined);
    const code = await ccm?.stop();
    await kwok?.stop();
    await deleteNodes(admin, nodeNames);
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
    await env?.close();
    expect(code).toBe(0);
  });

  async function initialized(name: string): Promise<V1Node> {
    return eventually(`${name} initialized`, async () => {
      const n = await core.readNode({ name });
      return hasTaint(n, UNINITIALIZED_TAINT.key) ? undefined : n;
    });
  }

  /** The Service's NLB (named as upstream names it) from moto: its DNS name and each target group's targets. */
  async function nlb(uid: string): Promise<{ dnsName: string; targets: string[][] } | undefined> {
    const name = `a${uid.replaceAll('-', '')}`.slice(0, 32);
    const res = await env.query('elasticloadbalancing', {
      Action: 'DescribeLoadBalancers',
      Version: '2015-12-01',
      'Names.member.1': name,
    });
    if (res.body.includes('LoadBalancerNotFound')) return undefined;
    const arn = xmlTexts(res.body, 'LoadBalancerArn')[0] as string;
    const tgs = await call(env.query, 'elasticloadbalancing', { Action: 'DescribeTargetGroups', LoadBalancerArn: arn });
    const targets: string[][] = [];
    for (const tg of xmlTexts(tgs, 'TargetGroupArn')) {
      const health = await call(env.query, 'elasticloadbalancing', {
        Action: 'DescribeTargetHealth',
        TargetGroupArn: tg,
      });
      targets.push(xmlTexts(health, 'Id').sort());
    }
    return { dnsName: xmlTexts(res.body, 'DNSName')[0] as string, targets };
  }

  /** Target groups named for this test's Service (k8s-<namespace:8>-web-<hash>, alphanumerics only). */
  async function ourTargetGroups(): Promise<string[]> {
    const prefix = `k8s-${namespace.replace(/[^a-zA-Z0-9]/g, '').slice(0, 8)}-web-`;
    const tgs = await call(env.query, 'elasticloadbalancing', { Action: 'DescribeTargetGroups' });
    return xmlTexts(tgs, 'TargetGroupName').filter((n) => n.startsWith(prefix));
  }

  const ids = (...indexes: number[]) => indexes.map((i) => instance(i).id).sort();

  it('initializes the Nodes with AWS providerIDs, labels and addresses', async () => {
    for (const i of [0, 1, 3, 4]) {
      const inst = instance(i);
      const node = await initialized(inst.privateDnsName);
      expect(node.spec?.providerID).toBe(`aws:///${inst.zone}/${inst.id}`);
      expect(node.metadata?.labels).toMatchObject({
        'node.kubernetes.io/instance-type': inst.type,
        'topology.kubernetes.io/zone': inst.zone,
        'topology.kubernetes.io/region': 'us-east-1',
      });
      const expected = [
        { type: 'InternalIP', address: inst.privateIp },
        { type: 'InternalDNS', address: inst.privateDnsName },
        { type: 'Hostname', address: inst.privateDnsName },
      ];
      await eventually('cloud addresses', async () => {
        const n = await core.readNode({ name: inst.privateDnsName });
        const got = (n.status?.addresses ?? []).map((a) => ({ type: a.type, address: a.address }));
        return JSON.stringify(got) === JSON.stringify(expected);
      });
    }
  });

  it('creates a route per pod CIDR to the node instance in the tagged route table', async () => {
    const routes = await eventually('routes', async () => {
      const body = await call(env.query, 'ec2', {
        Action: 'DescribeRouteTables',
        'RouteTableId.1': env.seeded.routeTableId,
      });
      const cidrs = xmlTexts(body, 'destinationCidrBlock').filter((c) => c.startsWith('10.213.'));
      return cidrs.length === 4 ? body : undefined;
    });
    const pairs = [
      ...routes.matchAll(
        /<destinationCidrBlock>(10\.213\.[^<]+)<\/destinationCidrBlock>(?:(?!<\/item>).)*?<instanceId>([^<]+)</gs,
      ),
    ];
    expect(Object.fromEntries(pairs.map((m) => [m[1], m[2]]))).toEqual({
      '10.213.0.0/24': instance(0).id,
      '10.213.1.0/24': instance(1).id,
      '10.213.3.0/24': instance(3).id,
      '10.213.4.0/24': instance(4).id,
    });
  });

  it('gives a LoadBalancer Service its NLB hostname, follows the node set, and deletes everything', async () => {
    await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 'web', annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' } },
        spec: {
          type: 'LoadBalancer',
          selector: { app: 'web' },
          ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }],
        },
      },
    });
    // Other files' LoadBalancer Services may be left in the shared cluster: this CCM serves them too, so the checks
    // look at this Service's NLB by name, never at moto's whole inventory.
    const uid = (await core.readNamespacedService({ namespace, name: 'web' })).metadata?.uid as string;
    const hostname = await eventually(
      'ingress hostname',
      async () => {
        const svc = await core.readNamespacedService({ namespace, name: 'web' });
        return svc.status?.loadBalancer?.ingress?.[0]?.hostname;
      },
      40_000,
    );
    expect((await nlb(uid))?.dnsName).toBe(hostname);
    const targetsBecome = (what: string, want: string[]) =>
      eventually(what, async () => JSON.stringify((await nlb(uid))?.targets) === JSON.stringify([want]));
    await targetsBecome('targets: every node', ids(0, 1, 3, 4));
    expect(await ourTargetGroups()).toHaveLength(1);

    await patchNode(core, instance(4).privateDnsName, { metadata: { labels: { [EXCLUDE_LABEL]: 'true' } } });
    await targetsBecome('targets: node excluded', ids(0, 1, 3));
    await patchNode(core, instance(4).privateDnsName, { metadata: { labels: { [EXCLUDE_LABEL]: null } } });
    await targetsBecome('targets: node back', ids(0, 1, 3, 4));

    await core.deleteNamespacedService({ namespace, name: 'web' });
    await eventually(
      'Service gone',
      async () => {
        const left = (await core.listNamespacedService({ namespace })).items;
        return left.length === 0;
      },
      40_000,
    );
    // The NLB (its listeners with it) and its target group are gone.
    expect(await nlb(uid)).toBeUndefined();
    expect(await ourTargetGroups()).toEqual([]);
  }, 120_000);

  it('taints the Node of a stopped instance and deletes the Node of a terminated one once NotReady', async () => {
    const stopped = instance(3);
    const terminated = instance(4);
    await setInstanceState(env.query, stopped.id, 'StopInstances');
    await setInstanceState(env.query, terminated.id, 'TerminateInstances');
    // The kubelets stop: kwok lets go of the Nodes, and their Ready condition turns False.
    for (const name of [stopped.privateDnsName, terminated.privateDnsName]) {
      await patchNode(core, name, { metadata: { annotations: { [KWOK_ANNOTATION]: null } } });
      await setReady(admin, name, false);
    }
    await eventually('shutdown taint', async () => {
      const n = await core.readNode({ name: stopped.privateDnsName });
      return hasTaint(n, SHUTDOWN_TAINT_KEY);
    });
    await eventually('terminated node deleted', async () => {
      try {
        await core.readNode({ name: terminated.privateDnsName });
        return false;
      } catch (err) {
        return (err as { code?: number }).code === 404;
      }
    });
    // The stopped one stays.
    expect((await core.readNode({ name: stopped.privateDnsName })).metadata?.name).toBe(stopped.privateDnsName);
  }, 60_000);
});
