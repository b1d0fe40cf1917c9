// The cloud provider as the controllers see it, shaped like upstream k8s.io/cloud-provider's cloud.go. Each
// capability accessor returns the implementation, or undefined when the provider does not support it (upstream's
// `(impl, false)`). Methods take the trimmed objects of the provider ABI and reject with the errors of ./errors.ts.
// Nothing here knows that providers are WebAssembly plugins. The capability interfaces are generated from the ABI
// definition (plugin-sdk/abi/v1.json, `npm run gen:abi`), so a new ABI method appears here with no edit.
import type { GetLoadBalancerResponse, KeptList, Node } from '../abi/index.ts';
import type { Clusters, Instances, InstancesV2, LoadBalancer, Routes, Zones } from './capabilities.generated.ts';

export type {
  InstanceMetadata,
  InstanceStatusOutcome,
  LoadBalancerStatus,
  Node,
  NodeAddress,
  NodeError,
  Route,
  Service,
  Zone,
} from '../abi/index.ts';
export type {
  Capabilities,
  Clusters,
  Instances,
  InstancesV2,
  LoadBalancer,
  Routes,
  Zones,
} from './capabilities.generated.ts';

/** What getLoadBalancer answers. */
export type LoadBalancerLookup = GetLoadBalancerResponse;

export interface Provider {
  /** The provider's name; ProviderIDs are `<providerName>://<instanceID>`. */
  providerName(): string;
  /** Whether the provider tags resources with a cluster ID. */
  hasClusterID(): boolean;
  instancesV2(): InstancesV2 | undefined;
  instances(): Instances | undefined;
  loadBalancer(): LoadBalancer | undefined;
  routes(): Routes | undefined;
  zones(): Zones | undefined;
  clusters(): Clusters | undefined;
}

/**
 * What a LoadBalancer may offer besides the ABI's methods. `prepareNodes` is given the node list that its next
 * ensureLoadBalancer and updateLoadBalancer calls will carry, once the node set has changed and before any call needs
 * it, so that work done once per list (a plugin's cut of it to the fields it reads, and that cut's JSON) is done
 * ahead of a burst of calls instead of inside its first one. It makes no cloud call and never throws.
 */
export interface NodeListPreparer {
  prepareNodes(nodes: KeptList<Node>): void;
}

/** Gives `balancer` the node list its next calls will carry, when it takes it (NodeListPreparer). */
export function prepareNodes(balancer: LoadBalancer, nodes: KeptList<Node>): void {
  (balancer as Partial<NodeListPreparer>).prepareNodes?.(nodes);
}

/** `balancer` with `prepare` as its prepareNodes. */
export function withNodeListPreparer(
  balancer: LoadBalancer,
  prepare: (nodes: KeptList<Node>) => void,
): LoadBalancer & NodeListPreparer {
  return { ...balancer, prepareNodes: prepare };
}
