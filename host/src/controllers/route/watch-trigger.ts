// CloudControllerManagerWatchBasedRoutesReconciliation (alpha in cloud-provider 1.35): instead of a timer, the route
// controller reconciles when a node event can change the routes: a node added or deleted, its pod CIDRs or
// addresses changed, or the informer's periodic resync (an update with the same resourceVersion). The whole cluster
// is one queue item, rate limited to one reconciliation per 10 s (a token bucket with a burst of 1, its wait capped
// at 10 s), as upstream's KEP 5237 sets it: a stream of node events neither piles up delay nor reconciles more often.
import type { Registry } from 'prom-client';
import type { Informer } from '../../kube/informer/informer.ts';
import { BucketRateLimiter, WithMaxWaitRateLimiter } from '../../kube/workqueue/rate-limiters.ts';
import { RateLimitingQueue } from '../../kube/workqueue/rate-limiting.ts';
import type { Clock } from '../../kube/clock.ts';
import type { WireNode } from '../framework/wire-objects.ts';

const MIN_ROUTE_RESYNC_INTERVAL_MS = 10_000;
/** The one key: every reconciliation covers the whole cluster. */
export const ROUTES_KEY = 'routes';

function sameList<T>(a: readonly T[] | undefined, b: readonly T[] | undefined): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** Whether a node update can change the routes (upstream's handleNodeUpdate). */
export function routesAffected(old: WireNode, cur: WireNode): boolean {
  const resync = old.metadata?.resourceVersion === cur.metadata?.resourceVersion;
  return (
    resync ||
    !sameList(old.spec?.podCIDRs, cur.spec?.podCIDRs) ||
    !sameList(old.status?.addresses, cur.status?.addresses)
  );
}

/** The queue the node events feed; the route controller's worker drains it. */
export function routeEventQueue(
  nodes: Informer<WireNode>,
  registry?: Registry,
  clock?: Clock,
): RateLimitingQueue<string> {
  const limiter = new WithMaxWaitRateLimiter<string>(
    new BucketRateLimiter<string>(1000 / MIN_ROUTE_RESYNC_INTERVAL_MS, 1, clock),
    MIN_ROUTE_RESYNC_INTERVAL_MS,
  );
  const queue = new RateLimitingQueue<string>({ name: 'Routes', registry, rateLimiter: limiter, clock });
  const enqueue = (): void => queue.addRateLimited(ROUTES_KEY);
  nodes.addEventHandler({
    onAdd: enqueue,
    onUpdate: (old, cur) => {
      if (routesAffected(old, cur)) enqueue();
    },
    onDelete: enqueue,
  });
  return queue;
}
