// The shared informers of the CCM: one Node and one Service cache for every controller, trimmed to the fields
// the controllers read, so 5,000 Nodes do not cost their images and volume lists in memory.
import type { KubeClient } from '../kube/client/client.ts';
import type { WireNode, WireService } from '../controllers/framework/wire-objects.ts';
import { Informer } from '../kube/informer/informer.ts';
import { listWatcher } from '../kube/informer/list-watch.ts';
import type { Logger } from '../log/logger.ts';

/** Keeps metadata, spec, addresses, nodeInfo and each condition's type/status: all any controller reads from the cache. */
function trimNode(node: WireNode): WireNode {
  const status = node.status;
  return {
    apiVersion: node.apiVersion,
    kind: node.kind,
    metadata: node.metadata,
    spec: node.spec,
    status: {
      addresses: status?.addresses,
      // Whole (ten short strings): its systemUUID is what the instance methods send (ABI 1.4).
      nodeInfo: status?.nodeInfo,
      // reason stays: the route controller, like upstream's, skips a NetworkUnavailable write only when it matches too.
      conditions: status?.conditions?.map((c) => ({ type: c.type, status: c.status, reason: c.reason })),
    },
  };
}

function trimService(svc: WireService): WireService {
  return {
    apiVersion: svc.apiVersion,
    kind: svc.kind,
    metadata: svc.metadata,
    spec: svc.spec,
    status: { loadBalancer: svc.status?.loadBalancer },
  };
}

export interface SharedInformers {
  nodes: Informer<WireNode>;
  services: Informer<WireService>;
  start(): void;
  waitForSync(signal: AbortSignal): Promise<boolean>;
  stop(): Promise<void>;
}

/** Upstream's --min-resync-period default. */
const MIN_RESYNC_PERIOD_MS = 12 * 3_600_000;

/**
 * Upstream's ResyncPeriod: the informer factory's default handler resync, --min-resync-period times a factor drawn
 * once in [1, 2) (12 to 24 h by default), so that CCMs started together do not resync in step. Handlers ask for
 * shorter periods themselves (the service controller: 30 s for Services, 100 s for Nodes).
 */
export function defaultResyncPeriodMs(
  minResyncPeriodMs: number = MIN_RESYNC_PERIOD_MS,
  random: () => number = Math.random,
): number {
  return minResyncPeriodMs * (1 + random());
}

export function sharedInformers(
  client: KubeClient,
  logger: Logger,
  minResyncPeriodMs: number = MIN_RESYNC_PERIOD_MS,
): SharedInformers {
  const resyncPeriodMs = defaultResyncPeriodMs(minResyncPeriodMs);
  const nodes = new Informer<WireNode>({
    name: 'nodes',
    listWatcher: listWatcher(client, '/api/v1/nodes'),
    trim: trimNode,
    logger,
    resyncPeriodMs,
  });
  const services = new Informer<WireService>({
    name: 'services',
    listWatcher: listWatcher(client, '/api/v1/services'),
    trim: trimService,
    logger,
    resyncPeriodMs,
  });
  return {
    nodes,
    services,
    start() {
      nodes.start();
      services.start();
    },
    async waitForSync(signal) {
      const results = await Promise.all([nodes.waitForSync(signal), services.waitForSync(signal)]);
      return results.every(Boolean);
    },
    async stop() {
      await Promise.all([nodes.stop(), services.stop()]);
    },
  };
}
