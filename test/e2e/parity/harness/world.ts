// One side of a parity run: a fresh control plane, a fresh devcloud and one CCM (upstream or wasm-ccm) with the
// same flags, plus what the steps need to act on them. The CCM's log is copied into the run's log directory when
// the world stops, so a failing comparison can name both logs.
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, type V1Node, type V1Service } from '@kubernetes/client-node';
import { type Devcloud, type LoadBalancerInventory, startDevcloud } from '../../../../devcloud/src/index.ts';
import { CCMProcess, devcloudPluginArgs, readyCondition } from '../../../../lab/ccm/index.ts';
import { ControlPlane, adminKubeConfig } from '../../../../lab/controlplane/index.ts';
import { PeerCCM } from '../../../../lab/peers/index.ts';
import { NameBook } from '../../../support/parity/names.ts';
import { MERGE_PATCH, NAMESPACE, nodeBody, type NodeSeed, serviceBody, type ServiceSeed } from './objects.ts';

export type Impl = 'upstream' | 'wasm-ccm';
export const IMPLS: readonly Impl[] = ['upstream', 'wasm-ccm'];

export interface WorldOptions {
  impl: Impl;
  /** --cluster-cidr values (one per IP family). */
  clusterCIDRs: readonly string[];
  /** Flags beyond the common ones, for both CCMs. */
  flags: readonly string[];
  /** Where the CCM's log is copied when the world stops. */
  logDir: string;
  /** Names the log file: `<label>-<impl>.log`. */
  label: string;
}

/** Flags both implementations get (each adds what its provider wiring needs). */
export function commonFlags(clusterCIDRs: readonly string[]): string[] {
  return [
    '--leader-elect=false',
    '--controllers=*',
    '--cluster-name=kubernetes',
    `--cluster-cidr=${clusterCIDRs.join(',')}`,
    '--configure-cloud-routes=true',
    '--node-monitor-period=1s',
    '--route-reconciliation-period=2s',
  ];
}

export class World {
  readonly names = new NameBook();
  #ccm: PeerCCM | CCMProcess | undefined;
  readonly #started = Date.now();

  readonly options: WorldOptions;
  readonly cp: ControlPlane;
  readonly cloud: Devcloud;
  readonly core: CoreV1Api;

  private constructor(options: WorldOptions, cp: ControlPlane, cloud: Devcloud, core: CoreV1Api) {
    this.options = options;
    this.cp = cp;
    this.cloud = cloud;
    this.core = core;
  }

  static async start(options: WorldOptions): Promise<World> {
    const cp = await ControlPlane.start();
    try {
      const cloud = await startDevcloud({ token: 'parity-token' });
      return new World(options, cp, cloud, adminKubeConfig(cp.info).makeApiClient(CoreV1Api));
    } catch (err) {
      await cp.stop().catch(() => undefined);
      throw err;
    }
  }

  get impl(): Impl {
    return this.options.impl;
  }

  /** Seconds since the world started, for step logs. */
  elapsed(): string {
    return ((Date.now() - this.#started) / 1000).toFixed(1);
  }

  async startCCM(): Promise<void> {
    const args = [...commonFlags(this.options.clusterCIDRs), ...this.options.flags];
    if (this.impl === 'upstream') {
      this.#ccm = new PeerCCM({ info: this.cp.info, cloud: this.cloud, args });
      return;
    }
    const proc = new CCMProcess({
      info: this.cp.info,
      token: this.cp.info.adminToken,
      args: [...devcloudPluginArgs(this.cp.info.dir, this.cloud, 'parity'), ...args],
    });
    this.#ccm = proc;
    await proc.ready(60_000);
  }

  /** Where the running CCM writes its log. */
  ccmLogPath(): string | undefined {
    return this.#ccm?.process.logPath;
  }

  /** The CCM's log file (copied to the log directory on stop). */
  logFile(): string {
    return join(this.options.logDir, `${this.options.label}-${this.impl}.log`);
  }

  async stop(): Promise<void> {
    await this.#ccm?.stop().catch(() => undefined);
    const log = this.#ccm?.process.logPath;
    if (log && existsSync(log)) copyFileSync(log, this.logFile());
    await this.cloud.stop().catch(() => undefined);
    await this.cp.stop().catch(() => undefined);
  }

  /** Creates a Node; an initialized one gets its instance's addresses, as its earlier initialization wrote them
   * (else the CCM's first address refresh at start would race the scenario's first checkpoint). */
  async createNode(seed: NodeSeed): Promise<V1Node> {
    const instance = seed.initializedAs
      ? this.cloud.inventory().instances.find((i) => i.id === seed.initializedAs)
      : undefined;
    const addresses = seed.addresses ?? instance?.addresses;
    const made = await this.core.createNode({ body: nodeBody({ ...seed, ...(addresses ? { addresses } : {}) }) });
    this.names.remember('Node', seed.name, made.metadata?.uid);
    return made;
  }

  async createService(seed: ServiceSeed | V1Service): Promise<V1Service> {
    const body = 'group' in seed ? serviceBody(seed) : seed;
    const made = await this.core.createNamespacedService({ namespace: NAMESPACE, body });
    this.names.remember('Service', made.metadata!.name!, made.metadata?.uid);
    return made;
  }

  patchNode(name: string, body: object): Promise<V1Node> {
    return this.core.patchNode({ name, body }, MERGE_PATCH);
  }

  patchService(name: string, body: object): Promise<V1Service> {
    return this.core.patchNamespacedService({ name, namespace: NAMESPACE, body }, MERGE_PATCH);
  }

  async node(name: string): Promise<V1Node | undefined> {
    return (await this.core.listNode()).items.find((n) => n.metadata?.name === name);
  }

  async service(name: string): Promise<V1Service | undefined> {
    return (await this.core.listNamespacedService({ namespace: NAMESPACE })).items.find(
      (s) => s.metadata?.name === name,
    );
  }

  /** Sum of the counts of the Events about an object with this reason. */
  async eventCount(kind: string, name: string, reason: string): Promise<number> {
    const list = await this.core.listEventForAllNamespaces({
      fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name},reason=${reason}`,
    });
    return list.items.reduce((sum, e) => sum + (e.count ?? e.series?.count ?? 1), 0);
  }

  /** Sets the Ready condition through nodes/status, as a kubelet does (retrying on conflict with the CCM's writes). */
  async setReady(name: string, ready: boolean): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const node = await this.core.readNodeStatus({ name });
      const others = (node.status?.conditions ?? []).filter((c) => c.type !== 'Ready');
      node.status = { ...node.status, conditions: [...others, readyCondition(ready, new Date())] };
      try {
        await this.core.replaceNodeStatus({ name, body: node });
        return;
      } catch (err) {
        if ((err as { code?: number }).code !== 409 || attempt >= 10) throw err;
      }
    }
  }

  /** The cloud LB of a Service in the default namespace (the providers name it `kubernetes-default-<name>`). */
  lb(service: string): LoadBalancerInventory | undefined {
    return this.cloud.inventory().loadBalancers.find((l) => l.tags['k8s-service'] === `${NAMESPACE}/${service}`);
  }
}
