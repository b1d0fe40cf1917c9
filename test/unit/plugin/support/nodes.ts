import type { Node } from '../../../../host/src/cloudprovider/index.ts';

/** A trimmed Node; the faulty fixture reads `name` (the fault) and `providerID` (a URL for HTTP faults). */
export function node(name: string, providerID = ''): Node {
  return { name, uid: `uid-${name}`, providerID, labels: {}, annotations: {}, addresses: [] };
}
