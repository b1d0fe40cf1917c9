// Differences between the upstream cloud-controller-manager and wasm-ccm that the parity test accepts, each with
// its reason. A path is a flattened snapshot key (see harness/snapshot.ts), e.g.
// `final/node/init-a/labels/topology.kubernetes.io~1zone` or `checkpoint/web/3-a node joins/event/Service/web-svc/Normal/UpdatedLoadBalancer/count`. Keep this list short: every entry is a documented behaviour difference.

export interface AllowedDifference {
  /** Matches the flattened path of the differing value. */
  path: RegExp;
  /** When set, only value pairs it accepts are allowed (e.g. a message that differs by one known prefix). */
  values?: (upstream: string | undefined, wasm: string | undefined) => boolean;
  reason: string;
}

export const ALLOWED_DIFFERENCES: readonly AllowedDifference[] = [];
