// Kubernetes objects -> the trimmed ABI objects a provider sees (plugin-sdk/ABI.md): never whole objects, never
// managedFields, absent optional values as ""/[]/{}.
import type { Node, NodeAddress, Protocol, Service } from '../abi/index.ts';
import type { WireNode, WireService } from './framework/wire-objects.ts';

export function toABINode(node: WireNode): Node {
  return {
    name: node.metadata?.name ?? '',
    uid: node.metadata?.uid ?? '',
    providerID: node.spec?.providerID ?? '',
    labels: { ...node.metadata?.labels },
    annotations: { ...node.metadata?.annotations },
    addresses: (node.status?.addresses ?? []).map((a) => ({ type: a.type as NodeAddress['type'], address: a.address })),
  };
}

/**
 * A node for the instance methods (InstancesV2, the lifecycle checks), which also get status.nodeInfo.systemUUID (ABI
 * 1.4): what vSphere finds a VM by. Load balancer node lists leave it out, so they stay the same while a node reboots.
 */
export function toABIInstanceNode(node: WireNode): Node {
  return { ...toABINode(node), systemUUID: node.status?.nodeInfo?.systemUUID ?? '' };
}

export function toABIService(svc: WireService): Service {
  const spec = svc.spec ?? {};
  return {
    name: svc.metadata?.name ?? '',
    namespace: svc.metadata?.namespace ?? '',
    uid: svc.metadata?.uid ?? '',
    labels: { ...svc.metadata?.labels },
    annotations: { ...svc.metadata?.annotations },
    ports: (spec.ports ?? []).map((p) => ({
      name: p.name ?? '',
      protocol: (p.protocol ?? 'TCP') as Protocol,
      port: p.port,
      nodePort: p.nodePort ?? 0,
      targetPort: p.targetPort === undefined ? '' : String(p.targetPort),
      appProtocol: p.appProtocol ?? '',
    })),
    loadBalancerIP: spec.loadBalancerIP ?? '',
    loadBalancerSourceRanges: [...(spec.loadBalancerSourceRanges ?? [])],
    externalTrafficPolicy: spec.externalTrafficPolicy ?? '',
    healthCheckNodePort: spec.healthCheckNodePort ?? 0,
    ipFamilies: [...(spec.ipFamilies ?? [])],
    ipFamilyPolicy: spec.ipFamilyPolicy ?? '',
    loadBalancerClass: spec.loadBalancerClass ?? '',
    sessionAffinity: spec.sessionAffinity ?? '',
    externalIPs: [...(spec.externalIPs ?? [])],
  };
}
