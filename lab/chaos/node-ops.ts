// What the driver does to nodes and their instances, as the world around a CCM does it: kubelets register nodes
// (kwok keeps them Ready), machines stop, start and are terminated (their kubelet stops reporting: the node turns
// NotReady), nodes are scaled down, exclusion labels are toggled, and the node IPAM assigns pod CIDRs.
import { type CoreV1Api, PatchStrategy, setHeaderOptions, type V1Node } from '@kubernetes/client-node';
import type { Devcloud } from '../../devcloud/src/index.ts';
import { KWOK_ANNOTATION, KWOK_ANNOTATION_VALUE } from '../controlplane/index.ts';
import type { Random } from './random.ts';

export const EXCLUDE_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';
export const POOL_LABEL = 'chaos.wasm-ccm.dev/pool';
const UNINITIALIZED_TAINT = {
  key: 'node.cloudprovider.kubernetes.io/uninitialized',
  value: 'true',
  effect: 'NoSchedule',
};
/** Go's strconv.ParseBool spellings and two it refuses (a refused value excludes the node, as upstream). */
const EXCLUDE_VALUES = ['true', 'false', 'True', '0', 'F', 'yes', ''];

export interface NodeRecord {
  instanceId: string;
  state: 'running' | 'stopped' | 'terminated';
  podCIDR: string | undefined;
  /** Scaled down: its Node is to be deleted (again, if the first deletion failed). */
  removing?: boolean;
}

const MERGE = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

export class NodeOps {
  readonly nodes = new Map<string, NodeRecord>();
  #count = 0;
  #cidrs = 0;

  private readonly core: CoreV1Api;
  private readonly cloud: Devcloud;
  private readonly rng: Random;

  /** A /24 of the cluster CIDR per index (the node IPAM's job). */

  private readonly podCIDR: (index: number) => string;

  constructor(core: CoreV1Api, cloud: Devcloud, rng: Random, podCIDR: (index: number) => string) {
    this.core = core;
    this.cloud = cloud;
    this.rng = rng;
    this.podCIDR = podCIDR;
  }

  /** A new machine and the Node its kubelet registers (tainted until the CCM initializes it). */
  async add(): Promise<string> {
    const name = `chaos-node-${++this.#count}`;
    const instance = this.cloud.addInstance({ name });
    const podCIDR = this.rng.chance(0.5) ? this.podCIDR(this.#cidrs++) : undefined;
    this.nodes.set(name, { instanceId: instance.id, state: 'running', podCIDR });
    const body: V1Node = {
      metadata: {
        name,
        labels: {
          'kubernetes.io/hostname': name,
          'kubernetes.io/os': 'linux',
          [POOL_LABEL]: this.rng.pick(['a', 'b']),
        },
        annotations: { [KWOK_ANNOTATION]: KWOK_ANNOTATION_VALUE },
      },
      spec: { taints: [UNINITIALIZED_TAINT], ...(podCIDR ? { podCIDR, podCIDRs: [podCIDR] } : {}) },
    };
    await this.core.createNode({ body });
    return `add ${name}`;
  }

  private pickNode(state?: NodeRecord['state']): [string, NodeRecord] | undefined {
    const candidates = [...this.nodes].filter(([, n]) => state === undefined || n.state === state);
    return candidates.length === 0 ? undefined : this.rng.pick(candidates);
  }

  /**
   * Scale-down: the machine is terminated and its Node deleted. A deletion that fails (the apiserver restarting) is
   * retried by finishRemovals(): until then the node is a terminated one, left to the node lifecycle controller.
   */
  async remove(): Promise<string | undefined> {
    const hit = this.pickNode();
    if (!hit) return undefined;
    const [name, node] = hit;
    if (node.state !== 'terminated') this.cloud.terminateInstance(node.instanceId);
    node.state = 'terminated';
    node.removing = true;
    await this.core.deleteNode({ name }).catch(ignore404);
    this.nodes.delete(name);
    return `remove ${name}`;
  }

  async finishRemovals(): Promise<void> {
    for (const [name, node] of this.nodes) {
      if (!node.removing) continue;
      await this.core.deleteNode({ name }).catch(ignore404);
      this.nodes.delete(name);
    }
  }

  async stop(): Promise<string | undefined> {
    const hit = this.pickNode('running');
    if (!hit) return undefined;
    this.cloud.stopInstance(hit[1].instanceId);
    hit[1].state = 'stopped';
    await this.kubeletGone(hit[0]);
    return `stop ${hit[0]}`;
  }

  async start(): Promise<string | undefined> {
    const hit = this.pickNode('stopped');
    if (!hit) return undefined;
    this.cloud.startInstance(hit[1].instanceId);
    hit[1].state = 'running';
    // kwok takes the node over again and turns it Ready, as a kubelet starting with the machine does.
    await this.core.patchNode(
      { name: hit[0], body: { metadata: { annotations: { [KWOK_ANNOTATION]: KWOK_ANNOTATION_VALUE } } } },
      MERGE,
    );
    return `start ${hit[0]}`;
  }

  /** The machine is gone; its node stays until the node lifecycle controller deletes it. */
  async terminate(): Promise<string | undefined> {
    const hit = this.pickNode('running') ?? this.pickNode('stopped');
    if (!hit) return undefined;
    this.cloud.terminateInstance(hit[1].instanceId);
    hit[1].state = 'terminated';
    await this.kubeletGone(hit[0]).catch((err: Error) => {
      throw new Error(`terminate ${hit[0]}: ${err.message}`);
    });
    return `terminate ${hit[0]}`;
  }

  async toggleExclude(): Promise<string | undefined> {
    const hit = this.pickNode();
    if (!hit) return undefined;
    const value = this.rng.chance(0.3) ? null : this.rng.pick(EXCLUDE_VALUES);
    await this.core.patchNode({ name: hit[0], body: { metadata: { labels: { [EXCLUDE_LABEL]: value } } } }, MERGE);
    return `exclude ${hit[0]}=${value === null ? '(none)' : JSON.stringify(value)}`;
  }

  async assignPodCIDR(): Promise<string | undefined> {
    const candidates = [...this.nodes].filter(([, n]) => n.podCIDR === undefined && n.state !== 'terminated');
    if (candidates.length === 0) return undefined;
    const [name, node] = this.rng.pick(candidates);
    const podCIDR = this.podCIDR(this.#cidrs++);
    node.podCIDR = podCIDR;
    await this.core.patchNode({ name, body: { spec: { podCIDR, podCIDRs: [podCIDR] } } }, MERGE);
    return `podCIDR ${name}=${podCIDR}`;
  }

  /** Its kubelet stopped: kwok lets go of the node and it turns NotReady, as the node lifecycle would mark it. */
  private async kubeletGone(name: string): Promise<void> {
    await this.core.patchNode({ name, body: { metadata: { annotations: { [KWOK_ANNOTATION]: null } } } }, MERGE);
    const now = new Date();
    const notReady = {
      type: 'Ready',
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'kubelet stopped posting node status',
      lastHeartbeatTime: now,
      lastTransitionTime: now,
    };
    // Strategic merge: conditions merge by type, the others stay.
    await this.core.patchNodeStatus({ name, body: { status: { conditions: [notReady] } } }, MERGE);
  }

  /** Marks the nodes of stopped and terminated machines NotReady again (a kwok heartbeat may have raced the first). */
  async reassertKubeletsGone(): Promise<void> {
    for (const [name, n] of this.nodes) {
      if (n.state !== 'running') await this.kubeletGone(name).catch(() => undefined);
    }
  }

  /** Forgets nodes the lifecycle controller deleted (their instances were terminated). */
  async forgetDeleted(): Promise<void> {
    const existing = new Set((await this.core.listNode()).items.map((n) => n.metadata?.name ?? ''));
    for (const [name, n] of this.nodes) if (n.state === 'terminated' && !existing.has(name)) this.nodes.delete(name);
  }
}

export function ignore404(err: unknown): void {
  if ((err as { code?: number }).code !== 404) throw err;
}
