// Differences between the upstream cloud-controller-manager and wasm-ccm that the parity test accepts, each with
// its reason. A path is a flattened snapshot key (see test/e2e/parity/harness/snapshot.ts), e.g.
// `final/node/init-a/labels/topology.kubernetes.io~1zone` or `checkpoint/web/3-a node joins/event/Service/web-svc/Normal/UpdatedLoadBalancer/count`. Keep this list short: every entry is a documented behaviour difference.

export interface AllowedDifference {
  /** Matches the flattened path of the differing value. */
  path: RegExp;
  /** When set, only value pairs it accepts are allowed (e.g. a message that differs by one known prefix). */
  values?: (upstream: string | undefined, wasm: string | undefined) => boolean;
  reason: string;
}

/** A provider error as wasm-ccm words it: `<provider>.<method>: <the provider's error>`. */
const PROVIDER_CALL = /\bdevcloud\.[a-zA-Z]+: /g;

export const ALLOWED_DIFFERENCES: readonly AllowedDifference[] = [
  {
    // Only messages that differ by that prefix and nothing else.
    path: /\/event\/[^/]+\/[^/]+\/Warning\/[^/]+\/messages$/,
    values: (upstream, wasm) => upstream !== undefined && wasm?.replace(PROVIDER_CALL, '') === upstream,
    reason:
      'provider errors in Events name the provider and the call (devcloud.ensureLoadBalancer: ...): wasm-ccm routes ' +
      'Services to several providers by loadBalancerClass, and the name says which one failed; upstream shows the ' +
      "provider's error as is",
  },
];
