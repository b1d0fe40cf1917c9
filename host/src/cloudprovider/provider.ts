// The cloud provider as the controllers see it, shaped like upstream k8s.io/cloud-provider's cloud.go. Each
// capability accessor returns the implementation, or undefined when the provider does not support it (upstream's
// `(impl, false)`). Methods take the trimmed objects of the provider ABI and reject with the errors of ./errors.ts.
// Nothing here knows that providers are WebAssembly plugins. The capability interfaces are generated from the ABI
// definition (plugin-sdk/abi/v1.json, `npm run gen:abi`), so a new ABI method appears here with no edit.
import type { GetLoadBalancerResponse } from '../abi/index.ts';
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
