// List and watch one kind of object through KubeClient, as plain JSON (see client/wire.ts).
import type { KubeClient } from '../client/client.ts';
import type { KubeObject } from '../client/wire.ts';
import type { WatchEvent } from '../client/watch.ts';

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
}

/** The two calls an informer needs; a seam for tests and for wrapping (e.g. fault injection). */
export interface ListerWatcher {
  list(signal: AbortSignal): Promise<ListResult>;
  /** Events after `resourceVersion`; the iterable ends when the server closes the watch. */
  watch(resourceVersion: string, signal: AbortSignal): Promise<AsyncIterable<WatchEvent>>;
}

export interface ListWatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Server-side watch timeout; default random in [5, 10) minutes like client-go, so replicas do not align. */
  watchTimeoutSeconds?: () => number;
}

/**
 * `path` is a collection: /api/v1/nodes, /api/v1/services, /api/v1/namespaces/ns/events,
 * /apis/coordination.k8s.io/v1/namespaces/kube-system/leases.
 */
export function listWatcher(client: KubeClient, path: string, options: ListWatchOptions = {}): ListerWatcher {
  const selectors = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
  const timeoutSeconds = options.watchTimeoutSeconds ?? (() => 300 + Math.floor(Math.random() * 300));
  return {
    async list(signal) {
      // No `limit`: client-node has no continue-token handling, and one consistent list is what we want.
      const list = await client.request<{
        kind?: string;
        apiVersion?: string;
        metadata?: { resourceVersion?: string };
        items?: KubeObject[];
      }>({ path, query: selectors, signal, timeoutMs: 5 * 60_000 });
      // Items of a JSON list carry no kind/apiVersion while watch objects do; fill them in so both look alike.
      const kind = list.kind?.endsWith('List') ? list.kind.slice(0, -'List'.length) : undefined;
      const items = (list.items ?? []).map((item) => ({
        ...(kind !== undefined ? { kind } : {}),
        ...(list.apiVersion !== undefined ? { apiVersion: list.apiVersion } : {}),
        ...item,
      }));
      return { items, resourceVersion: list.metadata?.resourceVersion ?? '' };
    },
    watch(resourceVersion, signal) {
      return client.watch(
        path,
        { ...selectors, resourceVersion, allowWatchBookmarks: true, timeoutSeconds: timeoutSeconds() },
        signal,
      );
    },
  };
}
