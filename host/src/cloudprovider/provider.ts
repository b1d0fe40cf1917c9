// The cloud provider as the controllers see it, shaped like upstream k8s.io/cloud-provider's cloud.go. Each
// capability accessor returns the implementation, or undefined when the provider does not support it (upstream's
// `(impl, false)`). Methods take the trimmed objects of the provider ABI and reject with the errors of ./errors.ts.
// Nothing here knows that providers are WebAssembly plugins.
import type { InstanceMetadata, LoadBalancerStatus, Node, NodeAddress, Route, Service, Zone } from '../abi/index.ts';

export type { InstanceMetadata, LoadBalancerStatus, Node, NodeAddress, Route, Service, Zone };

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

/** What external providers implement for nodes (upstream InstancesV2). */
export interface InstancesV2 {
  /** False means the node's instance is gone and the node may be deleted. */
  instanceExists(node: Node): Promise<boolean>;
  instanceShutdown(node: Node): Promise<boolean>;
  instanceMetadata(node: Node): Promise<InstanceMetadata>;
}

/** The legacy node interface (upstream Instances). */
export interface Instances {
  nodeAddresses(nodeName: string): Promise<NodeAddress[]>;
  nodeAddressesByProviderID(providerID: string): Promise<NodeAddress[]>;
  instanceID(nodeName: string): Promise<string>;
  instanceType(nodeName: string): Promise<string>;
  instanceTypeByProviderID(providerID: string): Promise<string>;
  /** Must stay true for stopped instances; false means the node is deleted. */
  instanceExistsByProviderID(providerID: string): Promise<boolean>;
  instanceShutdownByProviderID(providerID: string): Promise<boolean>;
}

export interface LoadBalancerLookup {
  status: LoadBalancerStatus;
  exists: boolean;
}

export interface LoadBalancer {
  getLoadBalancer(clusterName: string, service: Service): Promise<LoadBalancerLookup>;
  getLoadBalancerName(clusterName: string, service: Service): Promise<string>;
  /** May reject with ImplementedElsewhereError. */
  ensureLoadBalancer(clusterName: string, service: Service, nodes: Node[]): Promise<LoadBalancerStatus>;
  /** May reject with ImplementedElsewhereError. */
  updateLoadBalancer(clusterName: string, service: Service, nodes: Node[]): Promise<void>;
  /** Never rejects with ImplementedElsewhereError. */
  ensureLoadBalancerDeleted(clusterName: string, service: Service): Promise<void>;
}

export interface Routes {
  listRoutes(clusterName: string): Promise<Route[]>;
  createRoute(clusterName: string, nameHint: string, route: Route): Promise<void>;
  deleteRoute(clusterName: string, route: Route): Promise<void>;
}

/** Deprecated upstream; the node controller does not call it when InstancesV2 is implemented. */
export interface Zones {
  getZone(): Promise<Zone>;
  getZoneByProviderID(providerID: string): Promise<Zone>;
  getZoneByNodeName(nodeName: string): Promise<Zone>;
}

export interface Clusters {
  listClusters(): Promise<string[]>;
  master(clusterName: string): Promise<string>;
}
