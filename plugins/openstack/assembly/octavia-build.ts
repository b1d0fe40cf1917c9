// The Octavia request bodies OCCM sends for a Service: the load balancer (fully populated: listeners with their
// default pool, members and health monitor, in one request), and each listener, pool, member list and health monitor
// on its own for an existing load balancer. Members are the nodes' InternalIP (else ExternalIP) on the NodePort.
import { isIPv6, JsonValue, JsonWriter, Node, NodeAddressType, Service, ServicePort } from "@wasm-ccm/plugin-sdk";
import { LbConfig } from "./config";
import { LbOptions } from "./lb-options";
import { description, listenerName, monitorName, poolName, uidTag } from "./names";
import { Features, memberKey } from "./octavia";

/** Everything an ensure of one Service decided before touching Octavia. */
export class Plan {
  clusterName: string = "";
  service: Service;
  opts: LbOptions;
  cfg: LbConfig;
  features: Features;
  lbName: string = "";
  /** The nodes after node-selector. */
  nodes: Node[] = [];
  memberSubnetID: string = "";
  vipSubnetID: string = "";
  vipNetworkID: string = "";

  constructor(service: Service, opts: LbOptions, cfg: LbConfig, features: Features) {
    this.service = service;
    this.opts = opts;
    this.cfg = cfg;
    this.features = features;
  }
}

function str(v: string): JsonValue {
  return JsonValue.ofString(v);
}

function num(v: i32): JsonValue {
  return JsonValue.ofNumber(<f64>v);
}

function list(items: string[]): JsonValue {
  const out = JsonValue.newArray();
  for (let i = 0; i < items.length; i++) out.push(str(items[i]));
  return out;
}

/** getListenerProtocol: HTTP for X-Forwarded-For, else the port's protocol. */
export function listenerProtocol(plan: Plan, port: ServicePort): string {
  return plan.opts.keepClientIP ? "HTTP" : port.protocol;
}

/** The pool's protocol: PROXY(V2) for proxy-protocol, HTTP for X-Forwarded-For, else the listener's. */
export function poolProtocol(plan: Plan, listenerProto: string): string {
  if (plan.opts.proxyProtocol != "") return plan.opts.proxyProtocol;
  return plan.opts.keepClientIP ? "HTTP" : listenerProto;
}

export function canUseHTTPMonitor(plan: Plan, port: ServicePort): bool {
  if (plan.cfg.lbProvider == "ovn") return false;
  return port.protocol != "UDP" || plan.features.httpMonitorsOnUDP;
}

export function loadBalancerBody(plan: Plan): JsonValue {
  const lb = JsonValue.newObject()
    .set("name", str(plan.lbName))
    .set("description", str(description(plan.clusterName, plan.service)))
    .set("provider", str(plan.cfg.lbProvider));
  if (plan.features.tags) lb.set("tags", list([plan.lbName, uidTag(plan.service)]));
  if (plan.opts.flavorID != "" && plan.features.flavors) lb.set("flavor_id", str(plan.opts.flavorID));
  if (plan.opts.availabilityZone != "" && plan.features.availabilityZones) {
    lb.set("availability_zone", str(plan.opts.availabilityZone));
  }
  if (plan.opts.portID != "") {
    lb.set("vip_port_id", str(plan.opts.portID));
  } else {
    lb.set("vip_subnet_id", str(plan.vipSubnetID));
    if (plan.vipNetworkID != "") lb.set("vip_network_id", str(plan.vipNetworkID));
  }
  // For an external load balancer spec.loadBalancerIP is the floating IP, not the VIP.
  const ip = plan.service.loadBalancerIP;
  if (ip != "" && (plan.opts.internal || plan.opts.ipFamily == "IPv6")) lb.set("vip_address", str(ip));
  const listeners = JsonValue.newArray();
  for (let i = 0; i < plan.service.ports.length; i++) {
    const port = plan.service.ports[i];
    const listener = listenerBody(plan, port, i);
    const pool = poolBody(plan, listenerProtocol(plan, port), i);
    pool.set("members", membersJson(plan, port));
    if (plan.opts.enableMonitor) pool.set("healthmonitor", monitorBody(plan, port, i));
    listener.set("default_pool", pool);
    listeners.push(listener);
  }
  lb.set("listeners", listeners);
  return JsonValue.newObject().set("loadbalancer", lb);
}

export function listenerBody(plan: Plan, port: ServicePort, index: i32): JsonValue {
  const l = JsonValue.newObject()
    .set("name", str(listenerName(index, plan.lbName)))
    .set("protocol", str(listenerProtocol(plan, port)))
    .set("protocol_port", num(port.port))
    .set("connection_limit", num(plan.opts.connLimit));
  if (plan.features.tags) l.set("tags", list([plan.lbName]));
  if (plan.features.timeouts) {
    l.set("timeout_client_data", num(plan.opts.timeoutClientData));
    l.set("timeout_member_connect", num(plan.opts.timeoutMemberConnect));
    l.set("timeout_member_data", num(plan.opts.timeoutMemberData));
    l.set("timeout_tcp_inspect", num(plan.opts.timeoutTCPInspect));
  }
  if (plan.opts.keepClientIP) l.set("insert_headers", JsonValue.newObject().set("X-Forwarded-For", str("true")));
  if (plan.features.vipACL && plan.opts.allowedCIDRs.length > 0) l.set("allowed_cidrs", list(plan.opts.allowedCIDRs));
  return l;
}

export function poolBody(plan: Plan, listenerProto: string, index: i32): JsonValue {
  const p = JsonValue.newObject()
    .set("name", str(poolName(index, plan.lbName)))
    .set("protocol", str(poolProtocol(plan, listenerProto)))
    .set("lb_algorithm", str(plan.opts.lbMethod));
  if (plan.service.sessionAffinity == "ClientIP") {
    p.set("session_persistence", JsonValue.newObject().set("type", str("SOURCE_IP")));
  }
  return p;
}

export function monitorBody(plan: Plan, port: ServicePort, index: i32): JsonValue {
  const m = JsonValue.newObject().set("name", str(monitorName(index, plan.lbName)));
  m.set("type", str(monitorType(plan, port)));
  m.set("delay", num(plan.opts.monitorDelay)).set("timeout", num(plan.opts.monitorTimeout));
  m.set("max_retries", num(plan.opts.monitorMaxRetries)).set("max_retries_down", num(plan.opts.monitorMaxRetriesDown));
  if (m.get("type").asString() == "HTTP") {
    m.set("url_path", str("/healthz")).set("http_method", str("GET")).set("expected_codes", str("200"));
  }
  return m;
}

export function monitorType(plan: Plan, port: ServicePort): string {
  if (plan.opts.healthCheckNodePort > 0 && canUseHTTPMonitor(plan, port)) return "HTTP";
  return port.protocol == "UDP" ? "UDP-CONNECT" : port.protocol;
}

export class Member {
  name: string = "";
  address: string = "";
  port: i32 = 0;
  monitorPort: i32 = 0;
}

/** One member per node with an address, on the NodePort (none when the Service allocates no NodePorts). */
export function membersOf(plan: Plan, port: ServicePort): Member[] {
  const out: Member[] = [];
  if (port.nodePort == 0) return out;
  const monitorPort = plan.opts.healthCheckNodePort > 0 && canUseHTTPMonitor(plan, port) ? plan.opts.healthCheckNodePort : 0;
  for (let i = 0; i < plan.nodes.length; i++) {
    const address = addressForLB(plan.nodes[i], plan.opts.ipFamily);
    if (address == "") continue; // as OCCM: a node without an address gets no member
    const m = new Member();
    m.name = plan.nodes[i].name;
    m.address = address;
    m.port = port.nodePort;
    m.monitorPort = monitorPort;
    out.push(m);
  }
  return out;
}

export function memberKeys(members: Member[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < members.length; i++) {
    const m = members[i];
    out.push(memberKey(m.name, m.address, m.port, m.monitorPort));
  }
  out.sort();
  return out;
}

function memberJson(plan: Plan, m: Member): JsonValue {
  const j = JsonValue.newObject().set("address", str(m.address)).set("protocol_port", num(m.port)).set("name", str(m.name));
  if (plan.memberSubnetID != "") j.set("subnet_id", str(plan.memberSubnetID));
  if (m.monitorPort > 0) j.set("monitor_port", num(m.monitorPort));
  return j;
}

function membersJson(plan: Plan, port: ServicePort): JsonValue {
  const members = membersOf(plan, port);
  const out = JsonValue.newArray();
  for (let i = 0; i < members.length; i++) out.push(memberJson(plan, members[i]));
  return out;
}

/** The batch member update's body ({"members": [...]}), written once as UTF-8 (no UTF-16 string on the way). */
export function membersBody(plan: Plan, port: ServicePort): JsonWriter {
  const w = new JsonWriter(256);
  JsonValue.newObject().set("members", membersJson(plan, port)).write(w);
  return w;
}

/** nodeAddressForLB: the first InternalIP, else ExternalIP, of the Service's IP family when it names one. */
export function addressForLB(node: Node, family: string): string {
  const types = [NodeAddressType.InternalIP, NodeAddressType.ExternalIP];
  for (let t = 0; t < types.length; t++) {
    for (let i = 0; i < node.addresses.length; i++) {
      const a = node.addresses[i];
      if (a.type != types[t]) continue;
      if (family == "IPv4" && isIPv6(a.address)) continue;
      if (family == "IPv6" && !isIPv6(a.address)) continue;
      return a.address;
    }
  }
  return "";
}
