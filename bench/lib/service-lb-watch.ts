// Watches, from outside the CCM, the Services of "default" and the service controller's Events there: when each
// Service was first seen with an ingress, and when the Events' count grew, on this process's monotonic clock. A burst
// of load balancers is timed from these: a poll would round each time up to the next one (polls of 1,000 Services
// 500 ms apart moved single runs by up to ~0.7 s).
import { performance } from 'node:perf_hooks';
import type { KubeClient } from '../../host/src/kube/client/client.ts';
import type { KubeObject } from '../../host/src/kube/client/wire.ts';
import { ObjectWatch } from './object-watch.ts';

interface ServiceJson extends KubeObject {
  status?: { loadBalancer?: { ingress?: unknown[] } };
}

interface EventJson extends KubeObject {
  count?: number;
}

const NAMESPACE = 'default';

export class ServiceLbWatch {
  /** Service name -> ms (performance.now) it was first seen with an ingress. */
  readonly ingress = new Map<string, number>();
  /**
   * When each write of the CCM's was seen (performance.now): a change of a Service after its creation (the
   * finalizer, the status), and each Event written or counted again. What tokensLost (lab/measure) replays.
   */
  readonly writes: number[] = [];
  /** Service name -> the resourceVersion last seen. */
  private readonly serviceVersions = new Map<string, string>();
  /** Event name -> its count, as last seen. */
  private readonly eventCounts = new Map<string, number>();
  private eventsWritten = 0;
  private eventsChangedAt = 0;
  private readonly serviceWatch: ObjectWatch<ServiceJson>;
  private readonly eventWatch: ObjectWatch<EventJson>;

  constructor(client: KubeClient) {
    this.serviceWatch = new ObjectWatch<ServiceJson>(client, {
      path: `/api/v1/namespaces/${NAMESPACE}/services`,
      see: (svc, at) => {
        const name = svc.metadata?.name;
        if (!name) return;
        const version = svc.metadata?.resourceVersion ?? '';
        const before = this.serviceVersions.get(name);
        if (before !== undefined && before !== version) this.writes.push(at);
        this.serviceVersions.set(name, version);
        if ((svc.status?.loadBalancer?.ingress?.length ?? 0) > 0 && !this.ingress.has(name)) {
          this.ingress.set(name, at);
        }
      },
    });
    this.eventWatch = new ObjectWatch<EventJson>(client, {
      path: `/api/v1/namespaces/${NAMESPACE}/events`,
      query: { fieldSelector: 'source=service-controller' },
      see: (event, at) => {
        const name = event.metadata?.name ?? '';
        const count = event.count ?? 1;
        const before = this.eventCounts.get(name) ?? 0;
        if (count === before) return;
        this.eventCounts.set(name, count);
        this.eventsWritten += count - before;
        for (let i = before; i < count; i++) this.writes.push(at);
        this.eventsChangedAt = at;
      },
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.serviceWatch.start(), this.eventWatch.start()]);
  }

  /** When the last of `names` was first seen with an ingress; rejects after `timeoutMs`, naming `who`. */
  async ingressOf(names: readonly string[], timeoutMs: number, who: string): Promise<number> {
    const done = (): number => names.filter((n) => this.ingress.has(n)).length;
    await this.serviceWatch.until(
      () => done() === names.length,
      timeoutMs,
      () => `${who}: only ${done()}/${names.length} LBs`,
    );
    return Math.max(...names.map((n) => this.ingress.get(n) ?? 0));
  }

  /**
   * Resolves once the service controller has written `count` Events in "default" (a CCM writes them through the same
   * client-side rate limit as its Service patches, so they trail the ingresses), or once their number has not grown
   * for `settleMs` (a CCM whose event queue overflowed drops the rest, as client-go's broadcaster does): with the
   * number written and when it last grew. Rejects after `timeoutMs`, naming `who`.
   */
  async events(
    count: number,
    timeoutMs: number,
    who: string,
    settleMs = 10_000,
  ): Promise<{ written: number; at: number }> {
    const started = performance.now();
    const settled = (): boolean => performance.now() - Math.max(this.eventsChangedAt, started) >= settleMs;
    await this.eventWatch.until(
      () => this.eventsWritten >= count || settled(),
      timeoutMs,
      () => `${who}: only ${this.eventsWritten}/${count} service-controller events`,
    );
    return { written: this.eventsWritten, at: this.eventsChangedAt };
  }

  async stop(): Promise<void> {
    await Promise.all([this.serviceWatch.stop(), this.eventWatch.stop()]);
  }
}
