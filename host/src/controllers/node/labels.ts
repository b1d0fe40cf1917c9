// Label rules of the cloud-node controller (upstream node_controller.go).
import type { InstanceMetadata } from '../../abi/index.ts';
import type { NodeLike } from './node-shape.ts';
import {
  LABEL_FAILURE_DOMAIN_BETA_REGION,
  LABEL_FAILURE_DOMAIN_BETA_ZONE,
  LABEL_INSTANCE_TYPE_BETA,
  LABEL_INSTANCE_TYPE_STABLE,
  LABEL_TOPOLOGY_REGION,
  LABEL_TOPOLOGY_ZONE,
} from './well-known.ts';

/** Beta label -> GA label: the GA label follows the beta one on initialized nodes. */
const BETA_TO_GA: readonly (readonly [string, string])[] = [
  [LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_TOPOLOGY_ZONE],
  [LABEL_FAILURE_DOMAIN_BETA_REGION, LABEL_TOPOLOGY_REGION],
  [LABEL_INSTANCE_TYPE_BETA, LABEL_INSTANCE_TYPE_STABLE],
];

/** Labels to set so every present beta label has its GA twin with the same value (empty when nothing to do). */
export function betaToGALabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  const update: Record<string, string> = {};
  for (const [beta, ga] of BETA_TO_GA) {
    const value = labels[beta];
    if (value !== undefined && labels[ga] !== value) update[ga] = value;
  }
  return update;
}

/** Keys under kubernetes.io or k8s.io (and their subdomains) are reserved: providers may not set them. */
const RESERVED_LABEL = /(^|\.)(kubernetes|k8s)\.io\//;

export interface LabelDecision {
  set: Record<string, string>;
  /** additionalLabels dropped, with the reason, for a warning. */
  dropped: { key: string; reason: string }[];
}

/** The labels initialization writes: instance type, zone, region (GA and beta) and the provider's extra labels. */
export function initializationLabels(node: NodeLike, meta: InstanceMetadata): LabelDecision {
  const set: Record<string, string> = {};
  if (meta.instanceType !== '') {
    set[LABEL_INSTANCE_TYPE_STABLE] = meta.instanceType;
    set[LABEL_INSTANCE_TYPE_BETA] = meta.instanceType;
  }
  if (meta.zone !== '') {
    set[LABEL_TOPOLOGY_ZONE] = meta.zone;
    set[LABEL_FAILURE_DOMAIN_BETA_ZONE] = meta.zone;
  }
  if (meta.region !== '') {
    set[LABEL_TOPOLOGY_REGION] = meta.region;
    set[LABEL_FAILURE_DOMAIN_BETA_REGION] = meta.region;
  }
  const existing = node.metadata?.labels ?? {};
  const dropped: LabelDecision['dropped'] = [];
  for (const [key, value] of Object.entries(meta.additionalLabels)) {
    if (RESERVED_LABEL.test(key)) {
      dropped.push({ key, reason: 'keys under kubernetes.io and k8s.io are reserved' });
    } else if (key in existing || key in set) {
      dropped.push({ key, reason: 'the node already has this label' });
    } else {
      set[key] = value;
    }
  }
  return { set, dropped };
}
