// What initializing a tainted node writes, decided from the node and the cloud's InstanceMetadata before any
// write happens, so a bad answer leaves the node tainted and untouched.
import type { InstanceMetadata } from '../../abi/index.ts';
import { preferProvidedNodeIPs, providedNodeIPs } from './addresses.ts';
import { initializationLabels, type LabelDecision } from './labels.ts';
import type { NodeLike, Taint } from './node-shape.ts';
import { TAINT_EXTERNAL_CLOUD_PROVIDER } from './well-known.ts';

export interface InitializationPlan {
  /** Set when spec.providerID is empty. */
  providerID?: string;
  labels: Record<string, string>;
  droppedLabels: LabelDecision['dropped'];
}

export function hasCloudTaint(node: NodeLike): boolean {
  return (node.spec?.taints ?? []).some((t) => t.key === TAINT_EXTERNAL_CLOUD_PROVIDER);
}

function withoutCloudTaint(taints: readonly Taint[] | undefined): Taint[] {
  return (taints ?? []).filter((t) => t.key !== TAINT_EXTERNAL_CLOUD_PROVIDER);
}

/** Throws (the node stays tainted and is retried) when the answer cannot initialize the node. */
export function planInitialization(node: NodeLike, meta: InstanceMetadata): InitializationPlan {
  const current = node.spec?.providerID ?? '';
  const providerID = meta.providerID !== '' ? meta.providerID : current;
  if (providerID === '') {
    throw new Error('the cloud answered an empty providerID and the node has no spec.providerID');
  }
  // Checked even when the cloud answered no addresses, as upstream: a provided IP must be among them.
  const ips = providedNodeIPs(node);
  if (ips) preferProvidedNodeIPs(ips, meta.nodeAddresses);
  const labels = initializationLabels(node, meta);
  return {
    ...(current === '' ? { providerID } : {}),
    labels: labels.set,
    droppedLabels: labels.dropped,
  };
}

/** Applies a plan to a (freshly read) node: providerID if still empty, labels, and the cloud taint removed. */
export function applyInitialization<N extends NodeLike>(node: N, plan: InitializationPlan): N {
  const spec = { ...node.spec, taints: withoutCloudTaint(node.spec?.taints) };
  if (plan.providerID !== undefined && !node.spec?.providerID) spec.providerID = plan.providerID;
  return {
    ...node,
    metadata: { ...node.metadata, labels: { ...node.metadata?.labels, ...plan.labels } },
    spec,
  };
}
