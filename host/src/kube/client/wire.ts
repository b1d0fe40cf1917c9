// The one object representation of the kube machinery: objects exactly as the apiserver sends them in JSON.
// Informer caches, watch events, leases and events are all plain parsed JSON, so timestamps are RFC 3339
// strings everywhere (list and watch alike) and nothing pays for client-node's typed deserialization
// (which turns only SOME paths' timestamps into Date objects and doubles the memory of a 5,000-node list).
// Wire<V1Node> types such an object with client-node's model shapes, every Date field typed as string.

export type Wire<T> = T extends Date
  ? string
  : T extends (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

export interface WireObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  managedFields?: unknown[];
  [field: string]: unknown;
}

/** Any Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: WireObjectMeta;
}

/** client-go's MetaNamespaceKeyFunc: "namespace/name", or "name" for cluster-scoped objects. */
export function objectKey(obj: KubeObject): string {
  const name = obj.metadata?.name ?? '';
  const namespace = obj.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}
