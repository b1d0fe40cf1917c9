// When each Service wanted a load balancer from this CCM (type LoadBalancer, no loadBalancerClass, not being
// deleted), as the driver made it so: a load balancer deleted inside such a window was deleted while its Service
// existed. A window opens once a read shows the Service served and closes when the request that ends it is sent, so
// the check errs towards silence, never towards a false alarm.
import type { V1Service } from '@kubernetes/client-node';

interface Window {
  from: number;
  until: number;
}

/** How long after a Service wants its load balancer again a deletion may still be the answer to its not wanting it. */
export const CATCH_UP_MS = 30_000;

export function servedByUs(svc: V1Service | undefined): boolean {
  if (!svc || svc.metadata?.deletionTimestamp) return false;
  return svc.spec?.type === 'LoadBalancer' && (svc.spec.loadBalancerClass ?? '') === '';
}

/** The devcloud plugin's load balancer name for a Service of cluster "kubernetes" (short names only). */
export const loadBalancerNameOf = (namespace: string, name: string): string => `kubernetes-${namespace}-${name}`;

export class ServiceTimeline {
  readonly #windows = new Map<string, Window[]>();

  /** Records what a read at `readAt` showed; `sentAt` is when the request before the read was sent. */
  observe(lbName: string, svc: V1Service | undefined, sentAt: number, readAt: number): void {
    const windows = this.#windows.get(lbName) ?? [];
    this.#windows.set(lbName, windows);
    const open = windows.at(-1)?.until === Infinity ? windows.at(-1) : undefined;
    if (servedByUs(svc)) {
      if (!open) windows.push({ from: readAt, until: Infinity });
    } else if (open) {
      open.until = sentAt;
    }
  }

  /** Called before a request that may end the window (a deletion, a type or class change). */
  closing(lbName: string, sentAt: number): void {
    const open = this.#windows.get(lbName)?.at(-1);
    if (open?.until === Infinity) open.until = sentAt;
  }

  /**
   * Whether deleting the load balancer of `lbName` at `at` broke the invariant: the Service wanted it then, and had
   * wanted it for longer than CATCH_UP_MS, or ever since it first did. A controller decides on what it read and acts
   * after its cloud calls (seconds each under injected latency): a deletion just after a Service stopped wanting its
   * load balancer and wanted it again is that decision arriving late, not a lost load balancer.
   */
  wantedAt(lbName: string, at: number): boolean {
    const windows = this.#windows.get(lbName) ?? [];
    return windows.some((w, i) => w.from <= at && at < w.until && (i === 0 || at - w.from > CATCH_UP_MS));
  }

  known(lbName: string): boolean {
    return this.#windows.has(lbName);
  }
}
