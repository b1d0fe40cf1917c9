// Kubernetes objects as the parity scenarios write them: Nodes as a kubelet (or a CCM, for initialized ones)
// leaves them, LoadBalancer Services whose backends are chosen by label so scenarios sharing a cloud stay apart,
// and the patch helpers the steps use.
import {
  PatchStrategy,
  setHeaderOptions,
  type V1Node,
  type V1Service,
  type V1ServicePort,
} from '@kubernetes/client-node';
import { readyCondition } from '../../../../lab/ccm/index.ts';

export const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';
export const SHUTDOWN = 'node.cloudprovider.kubernetes.io/shutdown';
export const TO_BE_DELETED = 'ToBeDeletedByClusterAutoscaler';
export const PROVIDED_IP = 'alpha.kubernetes.io/provided-node-ip';
export const EXCLUDE_LB = 'node.kubernetes.io/exclude-from-external-load-balancers';
export const LB_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';
export const DESCRIPTION = 'service.beta.kubernetes.io/devcloud-description';
export const HEALTH_CHECK = 'service.beta.kubernetes.io/devcloud-health-check-port';
export const BACKEND_SELECTOR = 'service.beta.kubernetes.io/devcloud-backend-label-selector';
/** The label a scenario's nodes carry and its Services select their backends by. */
export const GROUP_LABEL = 'parity.example/group';
export const NAMESPACE = 'default';

/** client-node 2.x sends JSON Patch unless told otherwise. */
export const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export interface NodeSeed {
  name: string;
  /** Ready condition; omitted: no conditions at all. */
  ready?: boolean;
  /** Initialized by a CCM before: providerID of this instance, no uninitialized taint, the cloud's addresses. */
  initializedAs?: string;
  podCIDRs?: readonly string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  taints?: readonly { key: string; value?: string; effect: string }[];
  unschedulable?: boolean;
  /** Addresses of an initialized node (default: a Hostname one). */
  addresses?: readonly { type: string; address: string }[];
}

export function nodeBody(seed: NodeSeed): V1Node {
  const taints = [
    ...(seed.initializedAs ? [] : [{ key: UNINITIALIZED, value: 'true', effect: 'NoSchedule' }]),
    ...(seed.taints ?? []),
  ];
  return {
    metadata: {
      name: seed.name,
      labels: { 'kubernetes.io/hostname': seed.name, 'kubernetes.io/os': 'linux', ...seed.labels },
      ...(seed.annotations ? { annotations: seed.annotations } : {}),
    },
    spec: {
      ...(seed.initializedAs ? { providerID: `devcloud://${seed.initializedAs}` } : {}),
      ...(taints.length > 0 ? { taints } : {}),
      ...(seed.podCIDRs ? { podCIDR: seed.podCIDRs[0], podCIDRs: [...seed.podCIDRs] } : {}),
      ...(seed.unschedulable ? { unschedulable: true } : {}),
    },
    status: {
      addresses: [...(seed.addresses ?? [{ type: 'Hostname', address: seed.name }])],
      ...(seed.ready === undefined ? {} : { conditions: [readyCondition(seed.ready, new Date())] }),
    },
  };
}

/** A port with a fixed nodePort: an allocated one would differ between the two control planes. */
export function port(name: string, p: number, nodePort: number | undefined, protocol = 'TCP'): V1ServicePort {
  return { name, protocol, port: p, targetPort: p, ...(nodePort === undefined ? {} : { nodePort }) };
}

export interface ServiceSeed {
  name: string;
  /** The group label value whose nodes are the backends. */
  group: string;
  ports: V1ServicePort[];
  type?: string;
  annotations?: Record<string, string>;
  finalizers?: string[];
  spec?: Partial<NonNullable<V1Service['spec']>>;
}

export function serviceBody(seed: ServiceSeed): V1Service {
  return {
    metadata: {
      name: seed.name,
      namespace: NAMESPACE,
      annotations: { [BACKEND_SELECTOR]: `${GROUP_LABEL}=${seed.group}`, ...seed.annotations },
      ...(seed.finalizers ? { finalizers: seed.finalizers } : {}),
    },
    spec: { type: seed.type ?? 'LoadBalancer', selector: { app: seed.name }, ports: seed.ports, ...seed.spec },
  };
}
