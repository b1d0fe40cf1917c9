// The subnets of a Service's load balancer as OCCM picks them (checkService, checkServiceUpdate): the VIP's network
// and subnet from the annotations or [LoadBalancer]; the members' subnet from member-subnet-id, else subnet-id; when
// nothing names one, the subnet of the first node's address, found on its server's ports.
import { internal, Node, PluginError } from "@wasm-ccm/plugin-sdk";
import { attachedPorts } from "./addresses";
import { Api } from "./api";
import { LbConfig } from "./config";
import { SUBNET_ID } from "./lb-options";
import { addressForLB, Plan } from "./octavia-build";
import { parseProviderID } from "./servers";

class SubnetOf {
  id: string = "";
  error: PluginError | null = null;
}

/** getSubnetIDForLB: the subnet of the node's load-balancer address among its server's ports. */
function subnetOfNode(api: Api, node: Node, family: string): SubnetOf {
  const out = new SubnetOf();
  const prefix = "no subnet-id found: autodetecting it from node " + node.name + ": ";
  const address = addressForLB(node, family);
  if (address == "") {
    out.error = internal(prefix + "the node has no InternalIP or ExternalIP address");
    return out;
  }
  const id = parseProviderID(node.providerID);
  if (node.providerID == "" || id.error !== null) {
    out.error = internal(prefix + "can't determine instance ID from ProviderID " + node.providerID);
    return out;
  }
  const ports = attachedPorts(api, id.serverID);
  if (ports.error !== null) {
    out.error = ports.error;
    return out;
  }
  for (let p = 0; p < ports.ports.length; p++) {
    const port = ports.ports[p];
    for (let i = 0; i < port.fixedIPs.length; i++) {
      if (port.fixedIPs[i] == address) {
        out.id = port.subnetIDs[i];
        return out;
      }
    }
  }
  out.error = internal(prefix + "no port of server " + id.serverID + " has address " + address);
  return out;
}

/** For ensureLoadBalancer: the VIP's network and subnet and the members' subnet into `plan`. */
export function planSubnets(api: Api, plan: Plan, nodes: Node[]): PluginError | null {
  const o = plan.opts;
  plan.vipNetworkID = o.networkID;
  plan.vipSubnetID = o.subnetID;
  plan.memberSubnetID = plan.cfg.subnetID != "" ? plan.cfg.subnetID : o.subnetID;
  if (o.networkID == "" && o.subnetID == "") {
    const found = subnetOfNode(api, nodes[0], o.ipFamily);
    if (found.error !== null) return found.error;
    plan.vipSubnetID = found.id;
    plan.memberSubnetID = found.id;
  }
  if (o.memberSubnetID != "") plan.memberSubnetID = o.memberSubnetID;
  return null;
}

/** For updateLoadBalancer: only the members' subnet. */
export function planMemberSubnet(api: Api, plan: Plan, nodes: Node[]): PluginError | null {
  const o = plan.opts;
  const cfg: LbConfig = plan.cfg;
  const annotated = plan.service.annotations.has(SUBNET_ID) ? plan.service.annotations.get(SUBNET_ID) : "";
  if (o.memberSubnetID != "") plan.memberSubnetID = o.memberSubnetID;
  else if (cfg.subnetID != "") plan.memberSubnetID = cfg.subnetID;
  else if (annotated != "") plan.memberSubnetID = annotated;
  else if (nodes.length > 0) {
    const found = subnetOfNode(api, nodes[0], o.ipFamily);
    if (found.error !== null) return found.error;
    plan.memberSubnetID = found.id;
  }
  return null;
}
