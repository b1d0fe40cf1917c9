// What the driver does to LoadBalancer Services: creates them; changes their ports, the devcloud backend-selector
// annotation, externalTrafficPolicy, source ranges and loadBalancerClass (a class is set only with a change of type,
// as the API allows); deletes them. After each change it reads the Service back into the timeline (service-timeline.ts).
import type { CoreV1Api, V1Service, V1ServicePort } from '@kubernetes/client-node';
import type { Random } from './random.ts';
import { loadBalancerNameOf, type ServiceTimeline } from './service-timeline.ts';

export const SELECTOR_ANNOTATION = 'service.beta.kubernetes.io/devcloud-backend-label-selector';
/** Another controller's class: this CCM must leave such Services alone. */
export const FOREIGN_CLASS = 'example.com/other-lb';
const POOL_LABEL = 'chaos.wasm-ccm.dev/pool';

export class ServiceOps {
  readonly names = new Set<string>();
  #count = 0;

  private readonly core: CoreV1Api;
  private readonly namespace: string;
  private readonly rng: Random;
  private readonly timeline: ServiceTimeline;

  constructor(core: CoreV1Api, namespace: string, rng: Random, timeline: ServiceTimeline) {
    this.core = core;
    this.namespace = namespace;
    this.rng = rng;
    this.timeline = timeline;
  }

  private ports(): V1ServicePort[] {
    const count = this.rng.int(1, 2);
    const first = this.rng.int(1, 50) * 10;
    return Array.from({ length: count }, (_, i) => ({
      name: `p${i}`,
      port: first + i,
      targetPort: 8080 + i,
      protocol: this.rng.chance(0.8) ? 'TCP' : 'UDP',
    }));
  }

  async create(): Promise<string> {
    const name = `svc-${++this.#count}`;
    this.names.add(name);
    const foreign = this.rng.chance(0.15);
    const body: V1Service = {
      metadata: {
        name,
        ...(this.rng.chance(0.3) ? { annotations: { [SELECTOR_ANNOTATION]: `${POOL_LABEL}=a` } } : {}),
      },
      spec: {
        type: 'LoadBalancer',
        selector: { app: name },
        ports: this.ports(),
        externalTrafficPolicy: this.rng.chance(0.3) ? 'Local' : 'Cluster',
        ...(foreign ? { loadBalancerClass: FOREIGN_CLASS } : {}),
        ...(this.rng.chance(0.2) ? { loadBalancerSourceRanges: ['203.0.113.0/24'] } : {}),
      },
    };
    await this.apply(name, () => this.core.createNamespacedService({ namespace: this.namespace, body }));
    return `create ${name}${foreign ? ' (foreign class)' : ''}`;
  }

  private pick(): string | undefined {
    return this.names.size === 0 ? undefined : this.rng.pick([...this.names]);
  }

  /** Read, change, replace (a conflict with the CCM's own status writes just loses this change). */
  private async change(
    describe: string,
    edit: (svc: V1Service) => boolean,
    mayEnd = false,
  ): Promise<string | undefined> {
    const name = this.pick();
    if (name === undefined) return undefined;
    const svc = await this.core.readNamespacedService({ namespace: this.namespace, name });
    if (svc.metadata?.deletionTimestamp || !edit(svc)) return undefined;
    const replace = () => this.core.replaceNamespacedService({ namespace: this.namespace, name, body: svc });
    await this.apply(name, replace, mayEnd);
    return `${describe} ${name}`;
  }

  changePorts(): Promise<string | undefined> {
    return this.change('ports', (svc) => {
      if (svc.spec?.type !== 'LoadBalancer') return false;
      svc.spec.ports = this.ports();
      return true;
    });
  }

  changeAnnotation(): Promise<string | undefined> {
    return this.change('annotation', (svc) => {
      const annotations = { ...svc.metadata?.annotations };
      if (annotations[SELECTOR_ANNOTATION] === undefined)
        annotations[SELECTOR_ANNOTATION] = `${POOL_LABEL}=${this.rng.pick(['a', 'b'])}`;
      else delete annotations[SELECTOR_ANNOTATION];
      svc.metadata = { ...svc.metadata, annotations };
      return true;
    });
  }

  changeTrafficPolicy(): Promise<string | undefined> {
    return this.change('externalTrafficPolicy', (svc) => {
      if (svc.spec?.type !== 'LoadBalancer') return false;
      svc.spec.externalTrafficPolicy = svc.spec.externalTrafficPolicy === 'Local' ? 'Cluster' : 'Local';
      if (svc.spec.externalTrafficPolicy === 'Cluster') delete svc.spec.healthCheckNodePort;
      return true;
    });
  }

  changeSourceRanges(): Promise<string | undefined> {
    return this.change('sourceRanges', (svc) => {
      if (svc.spec?.type !== 'LoadBalancer') return false;
      svc.spec.loadBalancerSourceRanges = this.rng.pick([[], ['203.0.113.0/24'], ['198.51.100.0/24', '192.0.2.0/25']]);
      return true;
    });
  }

  /** LoadBalancer -> ClusterIP, or back to LoadBalancer with or without another controller's class. */
  changeTypeOrClass(): Promise<string | undefined> {
    return this.change(
      'type/class',
      (svc) => {
        const spec = svc.spec!;
        if (spec.type === 'LoadBalancer') {
          spec.type = 'ClusterIP';
          delete spec.loadBalancerClass;
          delete spec.externalTrafficPolicy;
          delete spec.healthCheckNodePort;
          delete spec.loadBalancerSourceRanges;
          delete spec.allocateLoadBalancerNodePorts;
          for (const p of spec.ports ?? []) delete p.nodePort;
        } else {
          spec.type = 'LoadBalancer';
          if (this.rng.chance(0.3)) spec.loadBalancerClass = FOREIGN_CLASS;
        }
        return true;
      },
      true,
    );
  }

  async remove(): Promise<string | undefined> {
    const name = this.pick();
    if (name === undefined) return undefined;
    this.names.delete(name);
    await this.apply(name, () => this.core.deleteNamespacedService({ namespace: this.namespace, name }), true);
    return `delete ${name}`;
  }

  /**
   * Runs a request, then records whether the Service wants a load balancer now. A request that may end that
   * (`mayEnd`: a deletion, a change of type or class) closes the window when it is sent.
   */
  private async apply(name: string, request: () => Promise<unknown>, mayEnd = false): Promise<void> {
    const sentAt = Date.now();
    if (mayEnd) this.timeline.closing(loadBalancerNameOf(this.namespace, name), sentAt);
    try {
      await request();
    } finally {
      await this.reread(name, sentAt);
    }
  }

  async reread(name: string, sentAt = Date.now()): Promise<void> {
    const lbName = loadBalancerNameOf(this.namespace, name);
    try {
      const svc = await this.core.readNamespacedService({ namespace: this.namespace, name });
      this.timeline.observe(lbName, svc, sentAt, Date.now());
    } catch (err) {
      if ((err as { code?: number }).code === 404) this.timeline.observe(lbName, undefined, sentAt, Date.now());
    }
  }
}
