// The parts of a core/v1 Node the node controllers read. Structural, so both client-node's V1Node and plain
// JSON objects fit.
export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: unknown;
}

export interface Address {
  type: string;
  address: string;
}

export interface NodeLike {
  metadata?: { name?: string; uid?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { providerID?: string; taints?: Taint[] };
  status?: { addresses?: Address[]; conditions?: { type: string; status: string }[] };
}
