// Every Event reason wasm-ccm records, with its type, the object it is about, the component that records it and what
// it means: the one definition the controllers and the hot swapper record from (recordReason) and the troubleshooting
// reference (docs/troubleshooting.md, scripts/gen-events-doc.ts) is written from. The controllers' reasons and
// messages are upstream's (k8s.io/cloud-provider v0.36), so `kubectl get events` reads as it does with another CCM.
import type { KubeObject } from '../client/wire.ts';
import type { EventType } from './correlator.ts';

export interface EventReasonSpec {
  type: EventType;
  /** The kind of the involvedObject. */
  object: 'Node' | 'Service' | 'ConfigMap';
  /** source.component. */
  component: string;
  /** When it is recorded, in a sentence. */
  when: string;
}

const NODE = 'cloud-node-controller';
const LIFECYCLE = 'cloud-node-lifecycle-controller';
const SERVICE = 'service-controller';
const ROUTE = 'route-controller';
const PLUGINS = 'wasm-ccm';

export const EVENT_REASONS = {
  Synced: {
    type: 'Normal',
    object: 'Node',
    component: NODE,
    when: 'the node was initialized from the cloud: providerID, addresses, labels set, the uninitialized taint removed',
  },
  DeletingNode: {
    type: 'Normal',
    object: 'Node',
    component: LIFECYCLE,
    when: "the provider says the node's instance no longer exists; the Node object is deleted",
  },
  DeletingNodeFailed: {
    type: 'Warning',
    object: 'Node',
    component: LIFECYCLE,
    when: 'deleting the Node of an instance that no longer exists failed at the apiserver',
  },
  EnsuringLoadBalancer: {
    type: 'Normal',
    object: 'Service',
    component: SERVICE,
    when: "the Service's load balancer is being created or updated (ports, annotations, class, ...)",
  },
  EnsuredLoadBalancer: {
    type: 'Normal',
    object: 'Service',
    component: SERVICE,
    when: 'the provider created or updated the load balancer; its status is written next',
  },
  SyncLoadBalancerFailed: {
    type: 'Warning',
    object: 'Service',
    component: SERVICE,
    when: "a sync of the Service's load balancer failed (ensure, delete, finalizer or status); it is retried with backoff",
  },
  DeletingLoadBalancer: {
    type: 'Normal',
    object: 'Service',
    component: SERVICE,
    when: 'the Service was deleted or no longer wants a load balancer (type, class); the load balancer is being deleted',
  },
  DeletedLoadBalancer: {
    type: 'Normal',
    object: 'Service',
    component: SERVICE,
    when: 'the load balancer is gone (or was never there); the finalizer is removed',
  },
  DeleteLoadBalancerFailed: {
    type: 'Warning',
    object: 'Service',
    component: SERVICE,
    when: 'deleting the load balancer of a Service deleted and re-created under the same name failed; it is retried',
  },
  UpdatedLoadBalancer: {
    type: 'Normal',
    object: 'Service',
    component: SERVICE,
    when: "the load balancer's backends were updated after the set of nodes changed",
  },
  UpdateLoadBalancerFailed: {
    type: 'Warning',
    object: 'Service',
    component: SERVICE,
    when: "updating the load balancer's backends after a node change failed; the next node sync tries again",
  },
  UnAvailableLoadBalancer: {
    type: 'Warning',
    object: 'Service',
    component: SERVICE,
    when: 'no node is eligible as a backend (all excluded, not ready or being deleted); the load balancer has none',
  },
  FailedToCreateRoute: {
    type: 'Warning',
    object: 'Node',
    component: ROUTE,
    when: "creating the route of the node's pod CIDR failed; NetworkUnavailable stays True and the next pass retries",
  },
  PluginSwapped: {
    type: 'Normal',
    object: 'ConfigMap',
    component: PLUGINS,
    when: 'a module offered by the ConfigMap passed every check and serves the provider',
  },
  PluginRejected: {
    type: 'Warning',
    object: 'ConfigMap',
    component: PLUGINS,
    when: 'a module offered by the ConfigMap was refused (the message says why); the previous module keeps serving',
  },
} as const satisfies Record<string, EventReasonSpec>;

export type EventReason = keyof typeof EVENT_REASONS;

/** What records Events: an EventRecorder, or a part's narrower view of one. */
export interface EventSinkOf {
  recordEvent(object: KubeObject, type: EventType, reason: string, message: string): void;
}

/** Records `reason` about `object` with the type the catalog gives it. */
export function recordReason(recorder: EventSinkOf, object: KubeObject, reason: EventReason, message: string): void {
  recorder.recordEvent(object, EVENT_REASONS[reason].type, reason, message);
}
