// Many nodes in few DescribeInstances calls, for the batched InstancesV2 methods (ABI 1.5, 1.6), as cloud-provider-aws
// batches its lookups: the instance IDs of providerIDs and of resource-based node names in one instance-id filter,
// the other node names in one private-dns-name filter, at most FILTER_VALUES values a call. Each node gets the Lookup
// lookupNode gives it: an instance missing from the answer (or terminated) is none, and a failed call fails the nodes
// it asked about.
import { Node } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { badProviderID, describeInstances, Instance, instanceIdOf, instanceIdOfNodeName, Lookup } from "./instances";

/** AWS's limit on the values of one filter. */
const FILTER_VALUES = 200;

/** Lookups waiting on one key (an instance ID or a private DNS name); several nodes may share a key. */
class Pending {
  keys: string[] = [];
  waiting: Map<string, Lookup[]> = new Map();

  add(key: string, lookup: Lookup): void {
    if (!this.waiting.has(key)) {
      this.keys.push(key);
      this.waiting.set(key, []);
    }
    this.waiting.get(key).push(lookup);
  }
}

/** Answers every key of `pending`, FILTER_VALUES a call; byId: the keys are instance IDs, else private DNS names. */
function describeAll(aws: Aws, pending: Pending, byId: bool): void {
  for (let start = 0; start < pending.keys.length; start += FILTER_VALUES) {
    const chunk = pending.keys.slice(start, min(start + FILTER_VALUES, pending.keys.length));
    const found = byId ? describeInstances(aws, chunk, []) : describeInstances(aws, [], chunk);
    const live = new Map<string, Instance>();
    for (let k = 0; k < found.instances.length; k++) {
      const inst = found.instances[k];
      if (inst.state != "terminated") live.set(byId ? inst.id : inst.privateDnsName, inst);
    }
    for (let k = 0; k < chunk.length; k++) {
      const lookups = pending.waiting.get(chunk[k]);
      for (let n = 0; n < lookups.length; n++) {
        lookups[n].error = found.error;
        if (found.error === null && live.has(chunk[k])) lookups[n].instance = live.get(chunk[k]);
      }
    }
  }
}

/** One Lookup per node, in order: one call for up to FILTER_VALUES instance IDs, one for as many DNS names. */
export function lookupNodes(aws: Aws, nodes: Node[]): Lookup[] {
  const out = new Array<Lookup>();
  const ids = new Pending();
  const names = new Pending();
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    const one = new Lookup();
    out.push(one);
    if (node.providerID != "") {
      const id = instanceIdOf(node.providerID);
      if (id == "") one.error = badProviderID(node);
      else ids.add(id, one);
      continue;
    }
    const nameId = instanceIdOfNodeName(node.name);
    if (nameId != "") ids.add(nameId, one);
    else names.add(node.name, one);
  }
  describeAll(aws, ids, true);
  describeAll(aws, names, false);
  return out;
}
