// The floating IP of an external load balancer, as OCCM's ensureFloatingIP manages it on the VIP port: the one
// already there, else spec.loadBalancerIP's when it is free, else a new one on the floating network (the
// annotation's, the config's, or the first external network with an IPv4 subnet); an internal Service's floating
// IP is detached, and deleted when OCCM's (or this plugin's) description says it made it. Without a floating network
// the load balancer stays internal, as in OCCM.
import { encodeComponent, internal, JsonValue, Log, fields, PluginError } from "@wasm-ccm/plugin-sdk";
import { Api, del, get, post, put } from "./api";
import { LbOptions } from "./lb-options";
import { floatingIPDescription } from "./names";
import { LoadBalancer } from "./octavia";
import { Plan } from "./octavia-build";

const OURS = "Floating IP for Kubernetes external service";

class FloatingIP {
  id: string = "";
  address: string = "";
  portID: string = "";
  description: string = "";
}

class FloatingIPs {
  items: FloatingIP[] = [];
  error: PluginError | null = null;
}

function listFloatingIPs(api: Api, query: string): FloatingIPs {
  const out = new FloatingIPs();
  const answer = get(api.network, "/floatingips?" + query);
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const list = answer.doc!.get("floatingips");
  for (let i = 0; i < list.length; i++) {
    const f = new FloatingIP();
    f.id = list.at(i).get("id").asString();
    f.address = list.at(i).get("floating_ip_address").asString();
    f.portID = list.at(i).get("port_id").asString();
    f.description = list.at(i).get("description").asString();
    out.items.push(f);
  }
  return out;
}

export class Address {
  address: string = "";
  error: PluginError | null = null;
}

/** The address the Service's status advertises: its floating IP, or the VIP. */
export function ensureFloatingIP(api: Api, plan: Plan, lb: LoadBalancer): Address {
  const out = new Address();
  const onPort = listFloatingIPs(api, "port_id=" + encodeComponent(lb.vipPortID));
  if (onPort.error !== null) return failed(out, onPort.error!);
  let fip: FloatingIP | null = onPort.items.length > 0 ? onPort.items[0] : null;
  if (plan.opts.internal) {
    if (fip !== null) {
      const deleted = !plan.opts.keepFloatingIP ? deleteIfOurs(api, fip) : new Deleted();
      if (deleted.error !== null) return failed(out, deleted.error!);
      if (!deleted.done) {
        const detach = JsonValue.newObject().set("port_id", JsonValue.ofNull());
        const error = put(api.network, "/floatingips/" + encodeComponent(fip.id), wrap(detach)).error;
        if (error !== null) return failed(out, error);
      }
    }
    out.address = lb.vipAddress;
    return out;
  }
  const wanted = plan.service.loadBalancerIP;
  if (fip === null && wanted != "") {
    const free = listFloatingIPs(api, "floating_ip_address=" + encodeComponent(wanted));
    if (free.error !== null) return failed(out, free.error!);
    if (free.items.length > 0) {
      if (free.items[0].portID != "") return failed(out, internal("floating IP " + wanted + " is not available"));
      const attach = JsonValue.newObject().set("port_id", JsonValue.ofString(lb.vipPortID));
      const answer = put(api.network, "/floatingips/" + encodeComponent(free.items[0].id), wrap(attach));
      if (!answer.ok) return failed(out, answer.error!);
      fip = free.items[0];
    }
  }
  if (fip === null) {
    const made = createFloatingIP(api, plan, lb);
    if (made.error !== null) return failed(out, made.error!);
    if (made.address == "") {
      Log.warn(
        "Floating network configuration not provided for the Service, forcing to ensure an internal load balancer service",
        fields().set("service", plan.service.namespace + "/" + plan.service.name),
      );
    }
    out.address = made.address != "" ? made.address : lb.vipAddress;
    return out;
  }
  out.address = fip.address;
  return out;
}

function failed(out: Address, error: PluginError): Address {
  out.error = error;
  return out;
}

function wrap(body: JsonValue): JsonValue {
  return JsonValue.newObject().set("floatingip", body);
}

/** A new floating IP on the VIP port; address "" when there is no floating network to take it from. */
function createFloatingIP(api: Api, plan: Plan, lb: LoadBalancer): Address {
  const out = new Address();
  const network = floatingNetwork(api, plan.opts);
  if (network.error !== null) return failed(out, network.error!);
  if (network.address == "") return out;
  const body = JsonValue.newObject()
    .set("floating_network_id", JsonValue.ofString(network.address))
    .set("port_id", JsonValue.ofString(lb.vipPortID))
    .set("description", JsonValue.ofString(floatingIPDescription(plan.clusterName, plan.service)));
  if (plan.opts.floatingSubnetID != "") body.set("subnet_id", JsonValue.ofString(plan.opts.floatingSubnetID));
  if (plan.service.loadBalancerIP != "") body.set("floating_ip_address", JsonValue.ofString(plan.service.loadBalancerIP));
  const answer = post(api.network, "/floatingips", wrap(body));
  if (!answer.ok) return failed(out, internal("error creating LB floatingip: " + answer.error!.message));
  out.address = answer.doc!.get("floatingip").get("floating_ip_address").asString();
  Log.info("created floating IP for load balancer", fields().set("address", out.address).set("lb", lb.id));
  return out;
}

/** The floating network's ID (in `address`): configured, else the first external network with an IPv4 subnet. */
function floatingNetwork(api: Api, opts: LbOptions): Address {
  const out = new Address();
  if (opts.floatingNetworkID != "") {
    out.address = opts.floatingNetworkID;
    if (opts.floatingSubnetID == "") return out;
    const subnet = get(api.network, "/subnets/" + encodeComponent(opts.floatingSubnetID));
    if (!subnet.ok) return failed(out, internal('failed to find subnet "' + opts.floatingSubnetID + '": ' + subnet.error!.message));
    const owner = subnet.doc!.get("subnet").get("network_id").asString();
    if (owner != opts.floatingNetworkID) {
      return failed(out, internal('floating IP subnet "' + opts.floatingSubnetID + '" doesn\'t belong to the network "' + opts.floatingNetworkID + '"'));
    }
    return out;
  }
  const networks = get(api.network, "/networks?" + encodeComponent("router:external") + "=true");
  if (!networks.ok) return failed(out, networks.error!);
  const list = networks.doc!.get("networks");
  for (let i = 0; i < list.length; i++) {
    const net = list.at(i);
    if (net.get("subnets").length == 0) continue;
    const id = net.get("id").asString();
    const subnets = get(api.network, "/subnets?network_id=" + encodeComponent(id));
    if (!subnets.ok) return failed(out, subnets.error!);
    if (hasIPv4OrHidden(net.get("subnets"), subnets.doc!.get("subnets"))) {
      out.address = id;
      return out;
    }
  }
  return out;
}

/** OCCM's rule: a network qualifies by an IPv4 subnet, or by a subnet the project cannot see (then it cannot tell). */
function hasIPv4OrHidden(ids: JsonValue, visible: JsonValue): bool {
  for (let i = 0; i < ids.length; i++) {
    let seen = false;
    for (let k = 0; k < visible.length; k++) {
      if (visible.at(k).get("id").asString() != ids.at(i).asString()) continue;
      seen = true;
      if (visible.at(k).get("ip_version").asI32() == 4) return true;
    }
    if (!seen) return true;
  }
  return false;
}

class Deleted {
  done: bool = false;
  error: PluginError | null = null;
}

/** Deletes the floating IP when its description says a CCM made it for a Service; leaves any other alone. */
function deleteIfOurs(api: Api, fip: FloatingIP): Deleted {
  const out = new Deleted();
  if (!fip.description.includes(OURS)) return out;
  const answer = del(api.network, "/floatingips/" + encodeComponent(fip.id));
  if (!answer.ok && !answer.notFound) out.error = answer.error;
  else out.done = true;
  return out;
}

/** The address the load balancer is reached at: the VIP port's floating IP, else the VIP (OCCM's GetLoadBalancer). */
export function advertisedAddress(api: Api, lb: LoadBalancer): Address {
  const out = new Address();
  const onPort = listFloatingIPs(api, "port_id=" + encodeComponent(lb.vipPortID));
  if (onPort.error !== null) return failed(out, onPort.error!);
  out.address = onPort.items.length > 0 ? onPort.items[0].address : lb.vipAddress;
  return out;
}

/** On deletion: the VIP port's floating IP, if a CCM made it (and the Service does not ask to keep it). */
export function releaseFloatingIP(api: Api, opts: LbOptions, lb: LoadBalancer): PluginError | null {
  if (opts.keepFloatingIP || lb.vipPortID == "") return null;
  const onPort = listFloatingIPs(api, "port_id=" + encodeComponent(lb.vipPortID));
  if (onPort.error !== null) return onPort.error;
  if (onPort.items.length == 0) return null;
  return deleteIfOurs(api, onPort.items[0]).error;
}
