// The Services the service controller has synced, with upstream's lifetime rules (controllers/service/controller.go
// serviceCache and lastSyncedNodes). A Service enters when a sync of it starts (the version that sync acts on) and
// leaves only once its load balancer is deleted: by the sync that cleans it up, or, for a Service gone from the
// cluster, by the deletion of the load balancer from the version cached. A Service deleted after its cleanup
// finalizer was stripped by hand is never queued (there is no delete handler), so it stays, and node syncs keep
// giving its load balancer the node set; a failed update queues its key, whose sync then finds the Service gone and
// deletes the load balancer. Node syncs walk this cache, not the Services that exist.
import type { WireService } from '../framework/wire-objects.ts';

export interface CachedService {
  /** The version of the Service the last sync of its key acted on. */
  readonly service: WireService;
  /**
   * Identity (LoadBalancerNodeSet.identity) of the node set the load balancer was last given; undefined when no
   * ensure or node sync of this entry gave it one yet, which upstream compares as an empty set.
   */
  nodes: string | undefined;
}

export class ServiceCache {
  private readonly entries = new Map<string, CachedService>();

  get size(): number {
    return this.entries.size;
  }

  get(key: string): CachedService | undefined {
    return this.entries.get(key);
  }

  /**
   * Caches the version a sync acts on. The node-set record stays with the key, as upstream's lastSyncedNodes is
   * kept by key (upstream keeps it even after the entry goes; here it goes with the entry, so the map cannot grow
   * with every name ever used).
   */
  set(key: string, service: WireService): void {
    const entry = this.entries.get(key);
    this.entries.set(key, { service, nodes: entry?.nodes });
  }

  /** Records the node set given to the key's load balancer (a no-op once the key has left). */
  recordNodes(key: string, identity: string): void {
    const entry = this.entries.get(key);
    if (entry) entry.nodes = identity;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Every entry as it is now (a node sync works on this copy while syncs change the cache). */
  snapshot(): { key: string; service: WireService; nodes: string | undefined }[] {
    return [...this.entries].map(([key, e]) => ({ key, service: e.service, nodes: e.nodes }));
  }
}
