// The resource shapes of the devcloud API, exactly as they appear in JSON (README.md documents them).

export type AddressType = 'InternalIP' | 'ExternalIP' | 'Hostname' | 'InternalDNS' | 'ExternalDNS';
export const ADDRESS_TYPES: readonly AddressType[] = [
  'InternalIP',
  'ExternalIP',
  'Hostname',
  'InternalDNS',
  'ExternalDNS',
];

export interface Address {
  type: AddressType;
  address: string;
}

export type InstanceState = 'running' | 'stopped' | 'terminated';
export const INSTANCE_STATES: readonly InstanceState[] = ['running', 'stopped', 'terminated'];

export interface Instance {
  id: string;
  name: string;
  type: string;
  zone: string;
  region: string;
  addresses: Address[];
  state: InstanceState;
  labels: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

export type Protocol = 'TCP' | 'UDP' | 'SCTP';
export const PROTOCOLS: readonly Protocol[] = ['TCP', 'UDP', 'SCTP'];

export interface Listener {
  protocol: Protocol;
  port: number;
  nodePort: number;
}

/** The part of a load balancer a client chooses; PUT replaces all of it. */
export interface LoadBalancerSpec {
  listeners: Listener[];
  backendInstanceIds: string[];
  sourceRanges: string[];
  healthCheckNodePort: number | null;
  tags: Record<string, string>;
  description: string;
}

export interface LoadBalancer extends LoadBalancerSpec {
  name: string;
  vip: string;
  status: 'active';
  /** Bumped only when a create or update actually changed something. */
  revision: number;
  createdAt: string;
  updatedAt: string;
}

export interface RouteRecord {
  name: string;
  destinationCidr: string;
  targetInstanceId: string;
  description: string;
  tags: Record<string, string>;
  createdAt: string;
}

/** A route as served: blackhole is derived from the target's state at read time, never stored. */
export interface Route extends RouteRecord {
  blackhole: boolean;
}

export interface Zone {
  name: string;
  region: string;
}

export interface Region {
  name: string;
  zones: string[];
}
