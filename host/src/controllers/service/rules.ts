// Decisions of the service (LoadBalancer) controller, as upstream controllers/service/controller.go makes them.
import type { V1LoadBalancerStatus } from '@kubernetes/client-node';
import type { WireNode, WireService } from '../framework/wire-objects.ts';

export const LOAD_BALANCER_CLEANUP_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';
const LABEL_EXCLUDE_FROM_EXTERNAL_LB = 'node.kubernetes.io/exclude-from-external-load-balancers';
const TAINT_TO_BE_DELETED_BY_CA = 'ToBeDeletedByClusterAutoscaler';

/**
 * The loadBalancerClass values a service controller serves: `classes`, the classes other providers serve, and
 * Services without a class unless `classless` is false (the default provider serves no load balancers: they are then
 * left alone, as upstream leaves them with a cloud without load balancers).
 */
export interface ServedClasses {
  readonly classes: ReadonlySet<string>;
  readonly classless: boolean;
}

/** Upstream's: Services without a loadBalancerClass only. */
export const UPSTREAM_SERVED: ServedClasses = { classes: new Set(), classless: true };

/** Which Services this controller serves: type LoadBalancer, of a class it serves. */
export function wantsLoadBalancer(svc: WireService, served: ServedClasses = UPSTREAM_SERVED): boolean {
  if (svc.spec?.type !== 'LoadBalancer') return false;
  const cls = svc.spec.loadBalancerClass;
  return cls === undefined || cls === '' ? served.classless : served.classes.has(cls);
}

export function hasCleanupFinalizer(svc: WireService): boolean {
  return (svc.metadata?.finalizers ?? []).includes(LOAD_BALANCER_CLEANUP_FINALIZER);
}

/**
 * Upstream's needsCleanup: the load balancer must go when our finalizer is on and the Service is being deleted or
 * is no longer of type LoadBalancer. The class is not looked at: a Service of a class nobody here serves keeps a
 * finalizer it was created with until it is deleted.
 */
export function needsCleanup(svc: WireService): boolean {
  if (!hasCleanupFinalizer(svc)) return false;
  return svc.metadata?.deletionTimestamp !== undefined || svc.spec?.type !== 'LoadBalancer';
}

function sameJSON(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

function portsKey(svc: WireService): string {
  return JSON.stringify(
    (svc.spec?.ports ?? []).map((p) => [
      p.name ?? '',
      p.protocol ?? 'TCP',
      p.port,
      p.nodePort ?? 0,
      String(p.targetPort ?? ''),
      p.appProtocol ?? '',
    ]),
  );
}

/** Upstream needsUpdate: which changes between two versions of a Service require re-ensuring its load balancer. */
export function needsUpdate(
  oldSvc: WireService,
  newSvc: WireService,
  served: ServedClasses = UPSTREAM_SERVED,
): string | undefined {
  const o = oldSvc.spec ?? {};
  const n = newSvc.spec ?? {};
  if (wantsLoadBalancer(oldSvc, served) !== wantsLoadBalancer(newSvc, served)) return 'type';
  if (!wantsLoadBalancer(newSvc, served)) return undefined;
  // Order counts, as in upstream's reflect.DeepEqual: a reordered list is re-ensured.
  if (!sameJSON(o.loadBalancerSourceRanges ?? [], n.loadBalancerSourceRanges ?? [])) return 'loadBalancerSourceRanges';
  if (portsKey(oldSvc) !== portsKey(newSvc)) return 'ports';
  if (o.sessionAffinity !== n.sessionAffinity || !sameJSON(o.sessionAffinityConfig, n.sessionAffinityConfig)) {
    return 'sessionAffinity';
  }
  if ((o.loadBalancerIP ?? '') !== (n.loadBalancerIP ?? '')) return 'loadBalancerIP';
  if (!sameJSON(o.externalIPs ?? [], n.externalIPs ?? [])) return 'externalIPs';
  if (!sameJSON(oldSvc.metadata?.annotations ?? {}, newSvc.metadata?.annotations ?? {})) return 'annotations';
  if (oldSvc.metadata?.uid !== newSvc.metadata?.uid) return 'uid';
  if ((o.externalTrafficPolicy ?? '') !== (n.externalTrafficPolicy ?? '')) return 'externalTrafficPolicy';
  if ((o.healthCheckNodePort ?? 0) !== (n.healthCheckNodePort ?? 0)) return 'healthCheckNodePort';
  if ((o.ipFamilies ?? []).length !== (n.ipFamilies ?? []).length) return 'ipFamilies';
  return undefined;
}

// The spellings Go's strconv.ParseBool accepts; anything else is a parse error.
const GO_BOOL_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_BOOL_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** strconv.ParseBool: the value, or undefined where Go returns an error. */
function parseGoBool(text: string): boolean | undefined {
  if (GO_BOOL_TRUE.has(text)) return true;
  if (GO_BOOL_FALSE.has(text)) return false;
  return undefined;
}

/**
 * Upstream's nodeIncludedPredicate: without the exclude label a node is included; with it, only a value
 * strconv.ParseBool reads as false includes it (a value it cannot parse, "" included, excludes the node).
 */
function nodeNotExcludedByLabel(node: WireNode): boolean {
  const exclude = node.metadata?.labels?.[LABEL_EXCLUDE_FROM_EXTERNAL_LB];
  return exclude === undefined || parseGoBool(exclude) === false;
}

/** Upstream's stable node-set predicate: not being deleted, not excluded, not being removed by the autoscaler. */
export function nodeIncludedInLoadBalancers(node: WireNode): boolean {
  if (node.metadata?.deletionTimestamp !== undefined) return false;
  if (!nodeNotExcludedByLabel(node)) return false;
  return !(node.spec?.taints ?? []).some((t) => t.key === TAINT_TO_BE_DELETED_BY_CA);
}

/**
 * Upstream's shouldSyncUpdatedNode: a node update triggers a node sync only when the exclude label's verdict or the
 * providerID changes. A ToBeDeletedByClusterAutoscaler taint or a deletionTimestamp does not: such a node stays in
 * the load balancers (its connections drain) until something else syncs them, and then it is left out.
 */
export function nodeChangeAffectsLoadBalancers(oldNode: WireNode, newNode: WireNode): boolean {
  return (
    nodeNotExcludedByLabel(oldNode) !== nodeNotExcludedByLabel(newNode) ||
    (oldNode.spec?.providerID ?? '') !== (newNode.spec?.providerID ?? '')
  );
}

function normalizeStatus(status: V1LoadBalancerStatus | undefined): unknown {
  return (status?.ingress ?? []).map((i) => ({
    ip: i.ip ?? '',
    hostname: i.hostname ?? '',
    // The apiserver defaults ipMode to VIP when an ip is set: without the same default every ensure would rewrite.
    ipMode: i.ipMode || (i.ip ? 'VIP' : ''),
    ports: (i.ports ?? []).map((p) => ({ port: p.port, protocol: p.protocol, error: p.error ?? '' })),
  }));
}

/** Whether writing `next` would change status.loadBalancer (only then is the status subresource patched). */
export function loadBalancerStatusEqual(
  a: V1LoadBalancerStatus | undefined,
  b: V1LoadBalancerStatus | undefined,
): boolean {
  return sameJSON(normalizeStatus(a), normalizeStatus(b));
}

/** Node names an "Updating backends" record and an UpdateLoadBalancerFailed Event list at most (upstream). */
const LOGGABLE_NODE_NAMES = 20;

/**
 * Upstream's loggableNodeNames: the names of the first 20 nodes given, sorted and without repeats, then
 * `<N more>` for the rest.
 */
export function loggableNodeNames(names: readonly string[]): string[] {
  const shown = [...new Set(names.slice(0, LOGGABLE_NODE_NAMES))].sort();
  const skipped = names.length - LOGGABLE_NODE_NAMES;
  return skipped > 0 ? [...shown, `<${skipped} more>`] : shown;
}
