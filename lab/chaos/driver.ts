// The load: one change to the cluster or the cloud per step, drawn from the seed, with the number of nodes and
// Services kept within bounds. A step that fails (the apiserver restarting, a conflict with the CCM's own writes) is
// counted and skipped: the driver is the world, not the system under test.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Devcloud } from '../../devcloud/src/index.ts';
import { NodeOps } from './node-ops.ts';
import type { Random } from './random.ts';
import { ServiceOps } from './service-ops.ts';
import type { ServiceTimeline } from './service-timeline.ts';

export interface DriverBounds {
  nodes: [min: number, max: number];
  services: [min: number, max: number];
}

type Op =
  | 'addNode'
  | 'removeNode'
  | 'stopInstance'
  | 'startInstance'
  | 'terminateInstance'
  | 'toggleExclude'
  | 'assignPodCIDR'
  | 'createService'
  | 'deleteService'
  | 'changePorts'
  | 'changeAnnotation'
  | 'changeTrafficPolicy'
  | 'changeSourceRanges'
  | 'changeTypeOrClass';

const WEIGHTS: Record<Op, number> = {
  addNode: 3,
  removeNode: 1.5,
  stopInstance: 1.5,
  startInstance: 2,
  terminateInstance: 1.5,
  toggleExclude: 2,
  assignPodCIDR: 2,
  createService: 3,
  deleteService: 2,
  changePorts: 2,
  changeAnnotation: 1.5,
  changeTrafficPolicy: 1.5,
  changeSourceRanges: 1,
  changeTypeOrClass: 1.5,
};

export class Driver {
  readonly nodes: NodeOps;
  readonly services: ServiceOps;
  readonly done: Record<string, number> = {};
  failed = 0;
  #steps = 0;
  readonly lastErrors: string[] = [];

  private readonly rng: Random;
  private readonly bounds: DriverBounds;

  constructor(
    core: CoreV1Api,
    cloud: Devcloud,
    namespace: string,
    rng: Random,
    timeline: ServiceTimeline,
    bounds: DriverBounds,
    podCIDR: (index: number) => string,
  ) {
    this.rng = rng;
    this.bounds = bounds;
    this.nodes = new NodeOps(core, cloud, rng, podCIDR);
    this.services = new ServiceOps(core, namespace, rng, timeline);
  }

  private choose(): Op {
    const live = [...this.nodes.nodes.values()].filter((n) => n.state !== 'terminated').length;
    const services = this.services.names.size;
    if (live < this.bounds.nodes[0]) return 'addNode';
    if (services < this.bounds.services[0]) return 'createService';
    const weights = { ...WEIGHTS };
    if (live >= this.bounds.nodes[1]) weights.addNode = 0;
    if (live <= this.bounds.nodes[0]) weights.removeNode = weights.terminateInstance = 0;
    if (services >= this.bounds.services[1]) weights.createService = 0;
    if (services <= this.bounds.services[0]) weights.deleteService = 0;
    return this.rng.weighted(weights);
  }

  private run(op: Op): Promise<string | undefined> {
    const n = this.nodes;
    const s = this.services;
    const ops: Record<Op, () => Promise<string | undefined>> = {
      addNode: () => n.add(),
      removeNode: () => n.remove(),
      stopInstance: () => n.stop(),
      startInstance: () => n.start(),
      terminateInstance: () => n.terminate(),
      toggleExclude: () => n.toggleExclude(),
      assignPodCIDR: () => n.assignPodCIDR(),
      createService: () => s.create(),
      deleteService: () => s.remove(),
      changePorts: () => s.changePorts(),
      changeAnnotation: () => s.changeAnnotation(),
      changeTrafficPolicy: () => s.changeTrafficPolicy(),
      changeSourceRanges: () => s.changeSourceRanges(),
      changeTypeOrClass: () => s.changeTypeOrClass(),
    };
    return ops[op]();
  }

  /** One change; resolves with what it did (undefined when nothing fitted or it failed). */
  async step(): Promise<string | undefined> {
    if (++this.#steps % 10 === 0) await this.nodes.forgetDeleted().catch(() => undefined);
    const op = this.choose();
    try {
      const did = await this.run(op);
      if (did !== undefined) this.done[op] = (this.done[op] ?? 0) + 1;
      return did;
    } catch (err) {
      this.failed++;
      this.lastErrors.push(`${op}: ${(err as Error).message.split('\n')[0]?.slice(0, 160)}`);
      if (this.lastErrors.length > 10) this.lastErrors.shift();
      return undefined;
    }
  }
}
