// vSphere next to AWS in one cluster: one wasm-ccm process with two providers, both modules shipped in ConfigMaps.
// plugins/vsphere is the default provider (against vcsim: it initializes the Nodes of its VMs with vsphere://
// providerIDs, zones and addresses, and deletes the Node of a destroyed VM) and serves no load balancers, so classless
// Services are left alone; plugins/aws serves the LoadBalancer Services of one loadBalancerClass (against moto).
// Those Nodes are no EC2 instances, so the NLB's target group is of type ip and holds their InternalIPs on the
// NodePort; it follows the node set; deleting the Service leaves nothing in moto.
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  CCMProcess,
  deleteNodes,
  eventsAbout,
  type Kube,
  lbService,
  PLUGIN_NAMESPACE,
  prepareKube,
  putPluginConfigMap,
  setReady,
  UNINITIALIZED_TAINT,
  vsphereCredentialsFile,
  writePluginConfig,
  hasTaint,
} from '../../../lab/ccm/index.ts';
import { destroyVm, type Vcsim } from '../../../lab/clouds/vsphere/index.ts';
import { KWOK_ANNOTATION, startKwok, uniqueName } from '../../../lab/controlplane/index.ts';
import { type AwsEnv, call, elbInventory, startAwsEnv, vsphereConf, xmlTexts } from '../../../lab/peers/index.ts';
import { builtPlugin } from '../../../lab/plugins/index.ts';
import { eventually, type ManagedProcess } from '../../../lab/process/index.ts';
import { deleteAllServices, patchNode } from '../service/support/helpers.ts';
import { account, DATACENTER, REGION, startEstate, TOPOLOGY, vmNode, VMS } from '../vsphere/support/estate.ts';

const CLUSTER = 'vsphere-aws';
const AWS_CLASS = 'example.com/aws-nlb';
const EXCLUDE_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';
const KEY = 'plugin.wasm';

/** The Service's NLB in moto (named from its UID as upstream names it): its target groups' types and targets. */
async function nlbTargets(env: AwsEnv, uid: string): Promise<{ types: string[]; targets: string[] } | undefined> {
  const name = `a${uid.replaceAll('-', '')}`.slice(0, 32);
  const lbs = await env.query('elasticloadbalancing', { Action: 'DescribeLoadBalancers', 'Names.member.1': name });
  if (lbs.body.includes('LoadBalancerNotFound')) return undefined;
  const arn = xmlTexts(lbs.body, 'LoadBalancerArn')[0] ?? '';
  const tgs = await call(env.query, 'elasticloadbalancing', { Action: 'DescribeTargetGroups', LoadBalancerArn: arn });
  const targets: string[] = [];
  for (const tg of xmlTexts(tgs, 'TargetGroupArn')) {
    const health = await call(env.query, 'elasticloadbalancing', {
      Action: 'DescribeTargetHealth',
      TargetGroupArn: tg,
    });
    const ports = xmlTexts(health, 'Port');
    targets.push(...xmlTexts(health, 'Id').map((id, i) => `${id}:${ports[i]}`));
  }
  return { types: xmlTexts(tgs, 'TargetType'), targets: targets.sort() };
}

describe('vSphere nodes with AWS load balancers in one wasm-ccm', () => {
  const info = inject('controlPlane');
  const namespace = uniqueName('vsphere-aws');
  const maps = { vsphere: uniqueName('vsphere-plugin'), aws: uniqueName('aws-plugin') };
  let kube: Kube;
  let vc: Vcsim;
  let aws: AwsEnv;
  let kwok: ManagedProcess;
  let ccm: CCMProcess;

  beforeAll(async () => {
    [kube, vc, aws] = await Promise.all([
      prepareKube(info),
      startEstate(),
      // The VPC and subnets an NLB needs; no instances: the cluster's machines are vSphere VMs.
      startAwsEnv({ cluster: CLUSTER, zones: ['us-east-1a'], instancesPerZone: 0 }),
    ]);
    await kube.core.createNamespace({ body: { metadata: { name: namespace } } });
    await putPluginConfigMap(kube.core, maps.vsphere, KEY, readFileSync(builtPlugin('vsphere')));
    await putPluginConfigMap(kube.core, maps.aws, KEY, readFileSync(builtPlugin('aws')));
    const dir = mkdtempSync(join(info.dir, 'vsphere-aws-'));
    const source = (name: string) => ({ configMap: { namespace: PLUGIN_NAMESPACE, name, key: KEY } });
    const config = writePluginConfig(dir, namespace, {
      defaultProvider: 'vsphere',
      loadBalancerClasses: { [AWS_CLASS]: 'aws' },
      providers: [
        {
          name: 'vsphere',
          source: source(maps.vsphere),
          cloudConfig: vsphereConf(vc.server, TOPOLOGY),
          credentials: { file: vsphereCredentialsFile(dir, account(vc)) },
          allowedHosts: [vc.server],
        },
        {
          name: 'aws',
          source: source(maps.aws),
          cloudConfig: aws.cloudConfig,
          credentials: { file: aws.credentialsFile },
          allowedHosts: aws.allowedHosts,
          capabilities: ['loadBalancer'],
        },
      ],
    });
    kwok = startKwok({ kubeconfigPath: info.kubeconfigPath, logDir: mkdtempSync(join(info.dir, 'kwok-vsphere-aws-')) });
    for (const vm of VMS) await kube.core.createNode({ body: vmNode(vm) });
    ccm = new CCMProcess({
      info,
      token: kube.token,
      args: [
        '--cloud-provider=vsphere',
        `--plugin-config=${config}`,
        `--cluster-name=${CLUSTER}`,
        '--controllers=cloud-node,cloud-node-lifecycle,service',
        '--leader-elect=false',
        '--node-monitor-period=1s',
        // kwok's first status carries an InternalIP of its own: the CCM puts the VM's back within a second.
        '--node-status-update-frequency=1s',
      ],
    });
    await ccm.ready(60_000);
  }, 120_000);

  afterAll(async () => {
    // Services first, while the CCM still runs: their finalizers go only once their load balancers are deleted.
    await deleteAllServices(kube.core, namespace).catch(() => undefined);
    const code = await ccm?.stop();
    await kwok?.stop();
    await deleteNodes(
      kube.admin,
      VMS.map((vm) => vm.name),
    );
    await kube?.core.deleteNamespace({ name: namespace }).catch(() => undefined);
    for (const name of Object.values(maps)) {
      await kube?.core.deleteNamespacedConfigMap({ name, namespace: PLUGIN_NAMESPACE }).catch(() => undefined);
    }
    await Promise.all([vc?.stop(), aws?.close()]);
    expect(code).toBe(0);
  });

  it('initializes the Nodes through the vSphere provider', async () => {
    for (const vm of VMS) {
      const node = await eventually(`${vm.name} initialized with the VM's address`, async () => {
        const n = await kube.core.readNode({ name: vm.name });
        const ip = n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
        return hasTaint(n, UNINITIALIZED_TAINT.key) || ip !== vm.ip ? undefined : n;
      });
      expect(node.spec?.providerID).toBe(`vsphere://${vm.uuid}`);
      expect(node.metadata?.labels).toMatchObject({
        'topology.kubernetes.io/zone': vm.zone,
        'topology.kubernetes.io/region': REGION,
      });
    }
  });

  it("gives a Service of the AWS class an NLB with ip targets: the Nodes' InternalIPs on the NodePort", async () => {
    // A classless Service first: the default provider serves no load balancers, so it is left alone.
    await kube.core.createNamespacedService({ namespace, body: lbService('plain') });
    await kube.core.createNamespacedService({ namespace, body: lbService('web', AWS_CLASS) });
    const svc = await eventually(
      'ingress hostname',
      async () => {
        const s = await kube.core.readNamespacedService({ namespace, name: 'web' });
        return s.status?.loadBalancer?.ingress?.[0]?.hostname ? s : undefined;
      },
      40_000,
    );
    const uid = svc.metadata?.uid ?? '';
    const nodePort = svc.spec?.ports?.[0]?.nodePort ?? 0;
    expect(nodePort).toBeGreaterThan(0);
    const lb = await nlbTargets(aws, uid);
    expect(svc.status?.loadBalancer?.ingress?.[0]?.hostname).toMatch(/\.elb\.amazonaws\.com$/);
    expect(lb).toEqual({ types: ['ip'], targets: VMS.map((vm) => `${vm.ip}:${nodePort}`).sort() });
    // The controller has had its turn at 'plain' (one informer delivers the Services in order): no finalizer, no
    // status, no events.
    const plain = await kube.core.readNamespacedService({ namespace, name: 'plain' });
    expect(plain.metadata?.finalizers ?? []).toEqual([]);
    expect(plain.status?.loadBalancer?.ingress ?? []).toEqual([]);
    expect(await eventsAbout(kube.core, namespace, 'Service', 'plain')).toEqual([]);
  });

  it('drops an excluded Node and the Node of a destroyed VM from the targets', async () => {
    const svc = await kube.core.readNamespacedService({ namespace, name: 'web' });
    const uid = svc.metadata?.uid ?? '';
    const nodePort = svc.spec?.ports?.[0]?.nodePort ?? 0;
    const [excluded, destroyed, ...kept] = VMS;
    const want = (vms: typeof VMS) => vms.map((vm) => `${vm.ip}:${nodePort}`).sort();
    await patchNode(kube.core, excluded!.name, { metadata: { labels: { [EXCLUDE_LABEL]: 'true' } } });
    await eventually('excluded Node dropped', async () => {
      const lb = await nlbTargets(aws, uid);
      return JSON.stringify(lb?.targets) === JSON.stringify(want([destroyed!, ...kept])) ? true : undefined;
    });
    // The VM goes and its kubelet with it: the vSphere provider's lifecycle controller deletes the Node, and the AWS
    // provider's targets follow.
    await destroyVm(vc, DATACENTER, destroyed!.name);
    await patchNode(kube.core, destroyed!.name, { metadata: { annotations: { [KWOK_ANNOTATION]: null } } });
    await setReady(kube.admin, destroyed!.name, false);
    await eventually(
      "destroyed VM's Node dropped",
      async () => {
        const lb = await nlbTargets(aws, uid);
        return JSON.stringify(lb?.targets) === JSON.stringify(want(kept)) ? true : undefined;
      },
      40_000,
    );
    await expect(kube.core.readNode({ name: destroyed!.name })).rejects.toMatchObject({ code: 404 });
  });

  it('deletes the NLB and its target group with the Service, leaving nothing in moto', async () => {
    await kube.core.deleteNamespacedService({ namespace, name: 'web' });
    await kube.core.deleteNamespacedService({ namespace, name: 'plain' });
    await eventually('Service gone', async () => {
      const left = await kube.core.listNamespacedService({ namespace });
      return left.items.length === 0 ? true : undefined;
    });
    expect(await elbInventory(aws.query)).toEqual({ loadBalancers: [], targetGroups: [], listeners: [] });
  });
});
