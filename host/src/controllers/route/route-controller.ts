// route controller (upstream controllers/route/route_controller.go): every --route-reconciliation-period, makes the
// cloud's routes match the nodes' pod CIDRs and reports the outcome in each node's NetworkUnavailable condition.
import type { Registry } from 'prom-client';
import type { Clock } from '../../kube/clock.ts';
import type { Routes } from '../../cloudprovider/index.ts';
import type { KubeClient } from '../../kube/client/client.ts';
import { isNotFound } from '../../kube/client/errors.ts';
import type { EventRecorder } from '../../kube/events/recorder.ts';
import { recordReason } from '../../kube/events/reasons.ts';
import type { Informer } from '../../kube/informer/informer.ts';
import type { Logger } from '../../log/logger.ts';
import type { CIDR } from '../../net/cidr.ts';
import type { NodeAddress } from '../../abi/index.ts';
import { goDuration } from '../../util/duration.ts';
import { errorMessage } from '../../util/error-message.ts';
import type { WireNode } from '../framework/wire-objects.ts';
import { runPeriodically, runWorkers } from '../framework/workers.ts';
import type { RateLimitingQueue } from '../../kube/workqueue/rate-limiting.ts';
import { ROUTES_KEY, routeEventQueue } from './watch-trigger.ts';
import { routeSyncCounter } from './metrics.ts';
import { MAX_CONCURRENT_ROUTE_CREATIONS, planRoutes, type RouteNode, routesCreated } from './plan.ts';

export interface RouteControllerOptions {
  client: KubeClient;
  nodes: Informer<WireNode>;
  routes: Routes;
  clusterName: string;
  clusterCIDRs: readonly CIDR[];
  recorder: EventRecorder;
  logger: Logger;
  /** --route-reconciliation-period */
  periodMs: number;
  leaseFresh: () => boolean;
  /** Where route_controller_route_sync_total is counted. */
  registry?: Registry;
  /** The CloudControllerManagerWatchBasedRoutesReconciliation gate: reconcile on node events, not on the timer. */
  watchBased?: boolean;
  /** The event queue's clock (tests). */
  clock?: Clock;
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function limited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export class RouteController {
  readonly name = 'route';
  private readonly options: RouteControllerOptions;
  private readonly log: Logger;
  private lastRun = 0;
  private readonly syncs: { inc(): void } | undefined;
  /** Node events that can change the routes, with the watch-based gate (watch-trigger.ts). */
  readonly events: RateLimitingQueue<string> | undefined;

  constructor(options: RouteControllerOptions) {
    this.options = options;
    this.log = options.logger.child({ controller: 'route' });
    this.syncs = options.registry ? routeSyncCounter(options.registry) : undefined;
    this.events = options.watchBased ? routeEventQueue(options.nodes, options.registry, options.clock) : undefined;
  }

  async run(signal: AbortSignal): Promise<void> {
    const events = this.events;
    if (!events) {
      await runPeriodically(this.options.periodMs, signal, () => this.reconcile(), this.log);
      return;
    }
    // One worker: every reconciliation covers the whole cluster.
    signal.addEventListener('abort', () => events.shutDown(), { once: true });
    await runWorkers({ queue: events, workers: 1, sync: () => this.reconcile(), logger: this.log });
  }

  async reconcile(): Promise<void> {
    if (!this.options.leaseFresh()) {
      this.log.warn('leader lease is not fresh; skipping route reconciliation');
      // Without a timer, the node event that asked for this run would be forgotten: ask again, rate limited.
      this.events?.addRateLimited(ROUTES_KEY);
      return;
    }
    this.syncs?.inc();
    const cached = this.options.nodes.cache.list();
    const nodes: RouteNode[] = cached.map((n) => ({
      name: n.metadata?.name ?? '',
      uid: n.metadata?.uid ?? '',
      podCIDRs: n.spec?.podCIDRs ?? (n.spec?.podCIDR ? [n.spec.podCIDR] : []),
      addresses: (n.status?.addresses ?? []).map((a) => ({ type: a.type as NodeAddress['type'], address: a.address })),
    }));
    const routes = await this.options.routes.listRoutes(this.options.clusterName);
    const plan = planRoutes(nodes, routes, this.options.clusterCIDRs);
    const byName = new Map(cached.map((n) => [n.metadata?.name ?? '', n]));

    // Creations and deletions share the limit of 200 cloud calls in flight, as upstream's rate limiter channel.
    // Deletions start first, as upstream starts them first: a route being replaced (a non-canonical CIDR) is
    // usually gone before its successor is created, which a cloud refusing two routes for one CIDR needs.
    const work: (() => Promise<void>)[] = [
      ...plan.delete.map((route) => async () => {
        try {
          await this.options.routes.deleteRoute(this.options.clusterName, route);
          this.log.info('deleted route', { name: route.name, cidr: route.destinationCIDR });
        } catch (err) {
          this.log.error('could not delete route', {
            name: route.name,
            cidr: route.destinationCIDR,
            error: errorMessage(err),
          });
        }
      }),
      ...plan.create.map(({ nameHint, route }) => async () => {
        const started = performance.now();
        try {
          await this.options.routes.createRoute(this.options.clusterName, nameHint, route);
          plan.actions.get(route.targetNode)?.set(route.destinationCIDR, 'keep');
          this.log.info('created route', { node: route.targetNode, cidr: route.destinationCIDR, nameHint });
        } catch (err) {
          const message = `Could not create route ${nameHint} ${route.destinationCIDR} for node ${route.targetNode} after ${elapsedSince(started)}: ${errorMessage(err)}`;
          this.log.error('could not create route', { node: route.targetNode, error: message });
          const node = byName.get(route.targetNode);
          if (node) recordReason(this.options.recorder, node, 'FailedToCreateRoute', message);
        }
      }),
    ];
    await limited(work, MAX_CONCURRENT_ROUTE_CREATIONS, (w) => w());

    await limited(nodes, 20, async (node) => {
      const created = routesCreated(plan.actions.get(node.name));
      // Neither pod CIDRs nor routes: upstream leaves the condition alone (a node waiting for its CIDR is not
      // marked unavailable, which would keep it tainted).
      if (created === undefined) return;
      const cachedNode = byName.get(node.name);
      await this.updateNetworkingCondition(node.name, cachedNode, created).catch((err: unknown) => {
        if (!isNotFound(err))
          this.log.error('could not update NetworkUnavailable', { node: node.name, error: errorMessage(err) });
      });
    });
    this.lastRun = Date.now();
  }

  private async updateNetworkingCondition(
    name: string,
    node: WireNode | undefined,
    routesCreated: boolean,
  ): Promise<void> {
    const current = node?.status?.conditions?.find((c) => c.type === 'NetworkUnavailable');
    // Upstream leaves the condition alone only when both status and reason are already its own.
    const want = routesCreated
      ? { status: 'False', reason: 'RouteCreated' }
      : { status: 'True', reason: 'NoRouteCreated' };
    if (current?.status === want.status && current.reason === want.reason) {
      this.log.v(2).info('set node NetworkUnavailable was canceled because it is already set', {
        node: name,
        networkUnavailable: want.status,
      });
      return;
    }
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const condition = routesCreated
      ? {
          type: 'NetworkUnavailable',
          status: 'False',
          reason: 'RouteCreated',
          message: 'RouteController created a route',
        }
      : {
          type: 'NetworkUnavailable',
          status: 'True',
          reason: 'NoRouteCreated',
          message: 'RouteController failed to create a route',
        };
    await this.options.client.patch(
      `/api/v1/nodes/${encodeURIComponent(name)}/status`,
      { status: { conditions: [{ ...condition, lastTransitionTime: now, lastHeartbeatTime: now }] } },
      'strategic-merge',
      { ignoreResponse: true },
    );
  }

  healthy(): void {
    // On node events alone (the watch-based gate), a quiet cluster has no reconciliation to be late for.
    if (this.events) return;
    const stale = this.lastRun !== 0 && Date.now() - this.lastRun > 3 * this.options.periodMs + 60_000;
    if (stale) throw new Error(`no route reconciliation for ${Math.round((Date.now() - this.lastRun) / 1000)} s`);
  }
}

/**
 * Time since `started` (performance.now()) as Go prints a time.Duration, to the nanosecond ("1.234567ms"), as
 * upstream's message has it: each failure's message is then distinct, which is what makes client-go aggregate them.
 */
function elapsedSince(started: number): string {
  return goDuration(Math.round((performance.now() - started) * 1e6) / 1e6);
}
