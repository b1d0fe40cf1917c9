// The Classic ELB scenarios beside cloud-provider-aws, each against a fresh moto seeded alike: a Service without
// aws-load-balancer-type through create, a port change, a node joining and deletion (runClassicScenario, once per
// CCM, snapshots compared by classic-parity.test.ts), and the handover (runHandover): upstream makes the ELB, stops,
// wasm-ccm takes the cluster over. Both CCMs, and the state read here, reach moto through support/moto-corrections.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreV1Api, KubeConfig, V1ServicePort } from '@kubernetes/client-node';
import { CoreV1Api as Core, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { CCMProcess, deleteNodes, hasTaint, kubeletNode, UNINITIALIZED_TAINT } from '../../../../lab/ccm/index.ts';
import type { ControlPlaneInfo } from '../../../../lab/controlplane/index.ts';
import {
  type AwsEnv,
  AwsPeerCCM,
  type AwsQuery,
  call,
  elbInventory,
  startAwsEnv,
} from '../../../../lab/peers/index.ts';
import { builtPlugin } from '../../../../lab/plugins/index.ts';
import { eventually } from '../../../../lab/process/index.ts';
import { flatten, type Snapshot } from '../../../support/parity/flatten.ts';
import { type ClassicState, classicNames, classicState, groupRules } from './clb-state.ts';
import type { Normalizer } from './elb-state.ts';
import { type Corrections, startCorrectingProxy } from './moto-corrections.ts';

export const JSON_PATCH = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

export type Impl = 'upstream' | 'wasm-ccm';
export const CLB_CLUSTER = 'aws-clb-parity';

export interface ClassicContext {
  info: ControlPlaneInfo;
  admin: KubeConfig;
  token: string;
  namespace: string;
  /** Three NodePorts: 80, 443, and 8443 after the port change. */
  nodePorts: [number, number, number];
}

export interface Running {
  env: AwsEnv;
  /** moto as the CCM sees it: through the correcting proxy. */
  query: AwsQuery;
  core: CoreV1Api;
  ccm: { stop(): Promise<unknown>; running(): boolean; tail(): string };
  impl: Impl;
  corrections: () => Corrections;
  stopProxy: () => Promise<void>;
}

/** A fresh moto with the cluster's instances tagged (upstream sees only those) and the two CCM starters. */
export async function classicEnv(): Promise<AwsEnv> {
  const env = await startAwsEnv({ cluster: CLB_CLUSTER, zones: ['us-east-1a', 'us-east-1b'], instancesPerZone: 2 });
  for (const inst of env.seeded.instances) {
    await call(env.query, 'ec2', {
      Action: 'CreateTags',
      'ResourceId.1': inst.id,
      'Tag.1.Key': `kubernetes.io/cluster/${CLB_CLUSTER}`,
      'Tag.1.Value': 'owned',
    });
  }
  return env;
}

/** `global`: more [Global] lines of both CCMs' cloud config. */
export async function startImpl(
  impl: Impl,
  ctx: ClassicContext,
  env: AwsEnv,
  global: readonly string[] = [],
): Promise<Running> {
  const core = ctx.admin.makeApiClient(Core);
  const proxy = await startCorrectingProxy(env.moto.endpoint);
  const query: AwsQuery = (service, params) => env.moto.queryVia(proxy.endpoint, service, params);
  const fixed = { env, core, impl, query, corrections: proxy.corrections, stopProxy: proxy.close };
  if (impl === 'upstream') {
    const peer = new AwsPeerCCM({
      info: ctx.info,
      moto: env.moto,
      endpoint: proxy.endpoint,
      vpcID: env.seeded.vpcId,
      subnetID: env.seeded.subnetIds[0]!,
      clusterID: CLB_CLUSTER,
      global,
      args: [
        '--controllers=cloud-node-controller,service-lb-controller',
        '--leader-elect=false',
        '--configure-cloud-routes=false',
        `--cluster-name=${CLB_CLUSTER}`,
      ],
    });
    const ccm = { stop: () => peer.stop(), running: () => peer.process.running, tail: () => peer.process.tail() };
    return { ...fixed, ccm };
  }
  const process = new CCMProcess({
    info: ctx.info,
    token: ctx.token,
    args: [
      ...proxiedPluginArgs(env, proxy.endpoint, global),
      `--cluster-name=${CLB_CLUSTER}`,
      '--controllers=cloud-node,service',
      '--leader-elect=false',
    ],
  });
  const ccm = {
    stop: () => process.stop(),
    running: () => process.process.running,
    tail: () => process.process.tail(),
  };
  return { ...fixed, ccm };
}

/** wasm-ccm's plugin flags with both of its hosts at the proxy (127.0.0.1 for EC2, localhost for ELB, as for moto). */
function proxiedPluginArgs(env: AwsEnv, endpoint: string, global: readonly string[]): string[] {
  const port = new URL(endpoint).port;
  const hosts = { ec2: `127.0.0.1:${port}`, elasticloadbalancing: `localhost:${port}` };
  const config = env.cloudConfig
    .replace('[Global]', ['[Global]', ...global].join('\n'))
    .replace(/^URL = http:\/\/127\.0\.0\.1:\d+$/m, `URL = http://${hosts.ec2}`)
    .replace(/^URL = http:\/\/localhost:\d+$/m, `URL = http://${hosts.elasticloadbalancing}`);
  const credentials = Object.entries(hosts).map(([service, host]) => ({
    name: service,
    hosts: [host],
    insecure: true,
    awsSigV4: {
      accessKeyIdFile: 'access-key-id',
      secretAccessKeyFile: 'secret-access-key',
      region: env.moto.region,
      service,
    },
  }));
  const configFile = join(env.dir, `cloud-${port}.conf`);
  const credentialsFile = join(env.dir, `credentials-${port}.json`);
  writeFileSync(configFile, config);
  writeFileSync(credentialsFile, JSON.stringify({ credentials }));
  return [
    '--cloud-provider=aws',
    `--plugin=${builtPlugin('aws')}`,
    `--cloud-config=${configFile}`,
    `--plugin-credentials=${credentialsFile}`,
    `--plugin-allowed-hosts=${Object.values(hosts).join(',')}`,
  ];
}

function alive(run: Running): void {
  if (!run.ccm.running()) throw new Error(`${run.impl} exited`);
}

export const nodeName = (env: AwsEnv, i: number) => env.seeded.instances[i]!.privateDnsName;

/** Creates the Node of instance `i` and waits for the CCM to initialize it. */
export async function joinNode(run: Running, i: number): Promise<void> {
  const name = nodeName(run.env, i);
  await run.core.createNode({ body: kubeletNode(name) });
  await eventually(
    `${run.impl}: ${name} initialized`,
    async () => {
      alive(run);
      const n = await run.core.readNode({ name });
      return !hasTaint(n, UNINITIALIZED_TAINT.key) && (n.spec?.providerID ?? '') !== '';
    },
    45_000,
  );
}

/** The differential's Service: no annotation, ports 80 and 443. */
export async function createWeb(run: Running, ctx: ClassicContext): Promise<string> {
  return createService(run, ctx, 'web', {}, [
    { name: 'http', port: 80, targetPort: 8080, nodePort: ctx.nodePorts[0], protocol: 'TCP' },
    { name: 'https', port: 443, targetPort: 8443, nodePort: ctx.nodePorts[1], protocol: 'TCP' },
  ]);
}

/** A LoadBalancer Service; the name of its load balancer (`a` and the UID without dashes, 32 characters). */
export async function createService(
  run: Running,
  ctx: ClassicContext,
  name: string,
  annotations: Record<string, string>,
  ports: V1ServicePort[],
  sourceRanges: string[] = [],
): Promise<string> {
  await run.core.createNamespacedService({
    namespace: ctx.namespace,
    body: {
      metadata: { name, annotations },
      spec: { type: 'LoadBalancer', selector: { app: name }, ports, loadBalancerSourceRanges: sourceRanges },
    },
  });
  const svc = await run.core.readNamespacedService({ namespace: ctx.namespace, name });
  return `a${(svc.metadata?.uid ?? '').replaceAll('-', '')}`.slice(0, 32);
}

export function normalizer(env: AwsEnv, ctx: ClassicContext, lbName: string): Normalizer {
  const ids: Array<[string, string]> = [
    ...env.seeded.instances.map((inst, i): [string, string] => [inst.id, `{node-${i}}`]),
    [env.seeded.vpcId, '{vpc}'],
    ...env.seeded.subnetIds.map((s, i): [string, string] => [s, `{subnet-${i}}`]),
    [lbName, '{lb}'],
  ];
  const ports = new Map([
    [String(ctx.nodePorts[0]), 'nodePort:80'],
    [String(ctx.nodePorts[1]), 'nodePort:443'],
    [String(ctx.nodePorts[2]), 'nodePort:8443'],
  ]);
  return { text: (s) => ids.reduce((acc, [id, n]) => acc.replaceAll(id, n), s), port: (p) => ports.get(p) ?? p };
}

/** Waits until the ELB satisfies `done` and the Service has its hostname; the state then. */
export async function settled(
  run: Running,
  ctx: ClassicContext,
  lbName: string,
  what: string,
  done: (s: ClassicState) => boolean,
  service = 'web',
): Promise<{ state: ClassicState; hostname: string }> {
  const norm = normalizer(run.env, ctx, lbName);
  return eventually(
    `${run.impl}: ${what}`,
    async () => {
      alive(run);
      const svc = await run.core.readNamespacedService({ namespace: ctx.namespace, name: service });
      const hostname = svc.status?.loadBalancer?.ingress?.[0]?.hostname;
      const state = await classicState(run.query, lbName, norm);
      return hostname !== undefined && state !== undefined && done(state) ? { state, hostname } : undefined;
    },
    60_000,
    250,
  );
}

/** Deletes the Service, waits until it is gone (finalizer released), and lists what is left of it in moto. */
export async function deleteWeb(run: Running, ctx: ClassicContext, lbName: string): Promise<string[]> {
  return deleteServices(run, ctx, new Map([['web', lbName]]));
}

/** Deletes the Services (name -> load balancer name), waits until none is left, and lists what is left in moto. */
export async function deleteServices(
  run: Running,
  ctx: ClassicContext,
  services: Map<string, string>,
): Promise<string[]> {
  for (const name of services.keys()) await run.core.deleteNamespacedService({ namespace: ctx.namespace, name });
  await eventually(
    `${run.impl}: Services deleted`,
    async () => {
      alive(run);
      const left = await run.core.listNamespacedService({ namespace: ctx.namespace });
      return left.items.length === 0;
    },
    60_000,
    250,
  );
  const left: string[] = [];
  for (const lbName of services.values()) left.push(...(await orphans(run.env, ctx, lbName)));
  return left;
}

/** Classic ELBs, NLBs, security groups and rules of the Service still in moto. */
export async function orphans(env: AwsEnv, ctx: ClassicContext, lbName: string): Promise<string[]> {
  const rules = await groupRules(env.query, env.seeded.vpcId, normalizer(env, ctx, lbName));
  const nlbs = (await elbInventory(env.query)).loadBalancers.filter((n) => n === lbName);
  return [
    ...(await classicNames(env.query)).filter((n) => n === lbName).map((n) => `classic ELB ${n}`),
    ...nlbs.map((n) => `NLB ${n}`),
    ...Object.keys(rules)
      .filter((g) => g.includes('k8s-elb-{lb}'))
      .map((g) => `security group ${g}`),
    ...Object.entries(rules).flatMap(([g, rs]) =>
      rs.filter((r) => r.includes('{lb}')).map((r) => `rule in ${g}: ${r}`),
    ),
  ];
}

export async function snapshotState(
  out: Snapshot,
  step: string,
  run: Running,
  ctx: ClassicContext,
  lbName: string,
  state: ClassicState,
  hostname: string,
): Promise<void> {
  const norm = normalizer(run.env, ctx, lbName);
  flatten(out, `${step}/elb`, state);
  flatten(out, `${step}/hostname-is-elb-dns`, hostname === (await rawDns(run.env, lbName)));
  flatten(out, `${step}/security-groups`, await groupRules(run.query, run.env.seeded.vpcId, norm));
}

async function rawDns(env: AwsEnv, lbName: string): Promise<string> {
  const body = await call(env.query, 'elasticloadbalancing', {
    Action: 'DescribeLoadBalancers',
    Version: '2012-06-01',
    'LoadBalancerNames.member.1': lbName,
  });
  return /<DNSName>([^<]*)<\/DNSName>/.exec(body)?.[1] ?? '';
}

export async function cleanup(
  run: Running | undefined,
  env: AwsEnv,
  ctx: ClassicContext,
  nodes: string[],
): Promise<void> {
  await run?.ccm.stop();
  await run?.stopProxy();
  await deleteNodes(ctx.admin, nodes);
  const core = ctx.admin.makeApiClient(Core);
  // A scenario that failed half-way leaves its Service: released here so the next one starts from none.
  const left = await core.listNamespacedService({ namespace: ctx.namespace });
  for (const svc of left.items) {
    const name = svc.metadata?.name ?? '';
    await core
      .patchNamespacedService(
        { namespace: ctx.namespace, name, body: [{ op: 'remove', path: '/metadata/finalizers' }] },
        JSON_PATCH,
      )
      .catch(() => undefined);
    await core.deleteNamespacedService({ namespace: ctx.namespace, name }).catch(() => undefined);
  }
  await core.deleteCollectionNamespacedEvent({ namespace: ctx.namespace }).catch(() => undefined);
  await env.close();
}
