// What a Service asks of its load balancer: OCCM's loadbalancer.openstack.org/... annotations over the
// [LoadBalancer] defaults. Read strictly: where OCCM falls back to the default for a value it cannot read, a present
// but wrong value here is Invalid naming the annotation, before anything is created; an annotation for a feature
// this plugin lacks is Invalid too, never silently ignored.
import { annotationInt, invalid, parseCIDR, PluginError, Service } from "@wasm-ccm/plugin-sdk";
import { LbConfig } from "./config";
import { keyValueMap, splitList } from "./values";

const A = "loadbalancer.openstack.org/";
export const INTERNAL = "service.beta.kubernetes.io/openstack-internal-load-balancer";
export const NODE_SELECTOR = A + "node-selector";
export const CONN_LIMIT = A + "connection-limit";
export const FLOATING_NETWORK_ID = A + "floating-network-id";
export const FLOATING_SUBNET_ID = A + "floating-subnet-id";
export const KEEP_FLOATING_IP = A + "keep-floatingip";
export const PORT_ID = A + "port-id";
export const LB_METHOD = A + "lb-method";
export const PROXY_PROTOCOL = A + "proxy-protocol";
export const SUBNET_ID = A + "subnet-id";
export const NETWORK_ID = A + "network-id";
export const MEMBER_SUBNET_ID = A + "member-subnet-id";
export const TIMEOUT_CLIENT_DATA = A + "timeout-client-data";
export const TIMEOUT_MEMBER_CONNECT = A + "timeout-member-connect";
export const TIMEOUT_MEMBER_DATA = A + "timeout-member-data";
export const TIMEOUT_TCP_INSPECT = A + "timeout-tcp-inspect";
export const X_FORWARDED_FOR = A + "x-forwarded-for";
export const FLAVOR_ID = A + "flavor-id";
export const AVAILABILITY_ZONE = A + "availability-zone";
export const ENABLE_HEALTH_MONITOR = A + "enable-health-monitor";
export const MONITOR_DELAY = A + "health-monitor-delay";
export const MONITOR_TIMEOUT = A + "health-monitor-timeout";
export const MONITOR_MAX_RETRIES = A + "health-monitor-max-retries";
export const MONITOR_MAX_RETRIES_DOWN = A + "health-monitor-max-retries-down";
export const HOSTNAME = A + "hostname";
export const LOAD_BALANCER_ID = A + "load-balancer-id";
export const SOURCE_RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges";
// OCCM reads these; this plugin does not carry them out.
const UNSUPPORTED = [A + "class", A + "default-tls-container-ref", A + "floating-subnet", A + "floating-subnet-tags"];

const LB_METHODS = ["ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT"];
const MAX_TIMEOUT_MS: i64 = 31536000;

export class LbOptions {
  internal: bool = false;
  connLimit: i32 = -1;
  networkID: string = "";
  subnetID: string = "";
  memberSubnetID: string = "";
  floatingNetworkID: string = "";
  floatingSubnetID: string = "";
  keepFloatingIP: bool = false;
  portID: string = "";
  lbID: string = "";
  nodeSelector: Map<string, string> = new Map();
  keepClientIP: bool = false;
  /** "", "PROXY" or "PROXYV2": the pool protocol of proxy-protocol. */
  proxyProtocol: string = "";
  lbMethod: string = "";
  timeoutClientData: i32 = 50000;
  timeoutMemberConnect: i32 = 5000;
  timeoutMemberData: i32 = 50000;
  timeoutTCPInspect: i32 = 0;
  allowedCIDRs: string[] = [];
  enableMonitor: bool = false;
  healthCheckNodePort: i32 = 0;
  monitorDelay: i32 = 0;
  monitorTimeout: i32 = 0;
  monitorMaxRetries: i32 = 0;
  monitorMaxRetriesDown: i32 = 0;
  flavorID: string = "";
  availabilityZone: string = "";
  hostname: string = "";
  /** The first of spec.ipFamilies ("" when the Service names none). */
  ipFamily: string = "";
  error: PluginError | null = null;
}

function bad(out: LbOptions, name: string, value: string, want: string): LbOptions {
  out.error = invalid("annotation " + name + ': "' + value + '" is not valid: want ' + want);
  return out;
}

function text(a: Map<string, string>, name: string, fallback: string): string {
  return a.has(name) ? a.get(name) : fallback;
}

/** OCCM's getBoolFromServiceAnnotation takes exactly "true" and "false". */
function flag(out: LbOptions, a: Map<string, string>, name: string, fallback: bool): i32 {
  if (!a.has(name)) return fallback ? 1 : 0;
  const v = a.get(name);
  if (v == "true") return 1;
  if (v == "false") return 0;
  bad(out, name, v, "true or false");
  return -1;
}

export function readOptions(service: Service, cfg: LbConfig): LbOptions {
  const out = new LbOptions();
  const a = service.annotations;
  for (let i = 0; i < UNSUPPORTED.length; i++) {
    if (a.has(UNSUPPORTED[i])) {
      out.error = invalid("annotation " + UNSUPPORTED[i] + " is not supported by this plugin");
      return out;
    }
  }
  const internal = flag(out, a, INTERNAL, cfg.internalLB);
  if (internal < 0) return out;
  // As OCCM: internal-lb in the config makes every load balancer internal, whatever the annotation says.
  out.internal = cfg.internalLB || internal == 1;
  out.networkID = text(a, NETWORK_ID, cfg.networkID);
  out.subnetID = text(a, SUBNET_ID, cfg.subnetID);
  out.memberSubnetID = text(a, MEMBER_SUBNET_ID, cfg.memberSubnetID);
  out.floatingNetworkID = text(a, FLOATING_NETWORK_ID, cfg.floatingNetworkID);
  out.floatingSubnetID = text(a, FLOATING_SUBNET_ID, cfg.floatingSubnetID);
  out.portID = text(a, PORT_ID, "");
  out.lbID = text(a, LOAD_BALANCER_ID, "");
  out.hostname = text(a, HOSTNAME, "");
  out.flavorID = text(a, FLAVOR_ID, cfg.flavorID);
  out.availabilityZone = text(a, AVAILABILITY_ZONE, cfg.availabilityZone);
  out.nodeSelector = keyValueMap(text(a, NODE_SELECTOR, cfg.nodeSelector));
  out.ipFamily = service.ipFamilies.length > 0 ? service.ipFamilies[0] : "";
  const keep = flag(out, a, KEEP_FLOATING_IP, false);
  if (keep < 0) return out;
  out.keepFloatingIP = keep == 1;
  out.lbMethod = text(a, LB_METHOD, cfg.lbMethod);
  if (!LB_METHODS.includes(out.lbMethod)) return bad(out, LB_METHOD, out.lbMethod, LB_METHODS.join(", "));
  if (readProtocolOptions(service, out) !== null) return out;
  if (readTimeouts(a, out) !== null) return out;
  if (readSourceRanges(service, out) !== null) return out;
  readMonitor(service, cfg, out);
  return out;
}

function readProtocolOptions(service: Service, out: LbOptions): PluginError | null {
  const a = service.annotations;
  const xff = flag(out, a, X_FORWARDED_FOR, false);
  if (xff < 0) return out.error;
  out.keepClientIP = xff == 1;
  const proxy = text(a, PROXY_PROTOCOL, "false");
  if (proxy == "true" || proxy == "v1") out.proxyProtocol = "PROXY";
  else if (proxy == "v2") out.proxyProtocol = "PROXYV2";
  else if (proxy != "false") return bad(out, PROXY_PROTOCOL, proxy, "true, v1, v2 or false").error;
  if (out.proxyProtocol != "" && out.keepClientIP) {
    out.error = invalid("annotation " + PROXY_PROTOCOL + " and " + X_FORWARDED_FOR + " cannot be used together");
  }
  const limit = annotationInt(a, CONN_LIMIT, -1, -1, 2147483647);
  if (limit.error !== null) out.error = limit.error;
  out.connLimit = <i32>limit.value;
  return out.error;
}

function readTimeouts(a: Map<string, string>, out: LbOptions): PluginError | null {
  const names = [TIMEOUT_CLIENT_DATA, TIMEOUT_MEMBER_CONNECT, TIMEOUT_MEMBER_DATA, TIMEOUT_TCP_INSPECT];
  const defaults: i64[] = [50000, 5000, 50000, 0];
  const values: i32[] = [];
  for (let i = 0; i < names.length; i++) {
    const t = annotationInt(a, names[i], defaults[i], 0, MAX_TIMEOUT_MS);
    if (t.error !== null) {
      out.error = t.error;
      return out.error;
    }
    values.push(<i32>t.value);
  }
  out.timeoutClientData = values[0];
  out.timeoutMemberConnect = values[1];
  out.timeoutMemberData = values[2];
  out.timeoutTCPInspect = values[3];
  return null;
}

/** spec.loadBalancerSourceRanges, else the annotation, else everything of the Service's family (OCCM's default). */
function readSourceRanges(service: Service, out: LbOptions): PluginError | null {
  const fromSpec = service.loadBalancerSourceRanges.length > 0;
  const a = service.annotations;
  const ranges = fromSpec ? service.loadBalancerSourceRanges : splitList(text(a, SOURCE_RANGES, ""));
  if (ranges.length == 0) ranges.push(out.ipFamily == "IPv6" ? "::/0" : "0.0.0.0/0");
  for (let i = 0; i < ranges.length; i++) {
    if (parseCIDR(ranges[i]) === null) {
      const what = fromSpec ? "spec.loadBalancerSourceRanges" : "annotation " + SOURCE_RANGES;
      out.error = invalid(what + ': "' + ranges[i] + '" is not a CIDR such as 10.0.0.0/24');
      return out.error;
    }
    out.allowedCIDRs.push(ranges[i]);
  }
  return null;
}

function readMonitor(service: Service, cfg: LbConfig, out: LbOptions): void {
  const a = service.annotations;
  const enable = flag(out, a, ENABLE_HEALTH_MONITOR, cfg.createMonitor);
  if (enable < 0) return;
  out.enableMonitor = enable == 1;
  if (out.enableMonitor && service.externalTrafficPolicy == "Local" && service.healthCheckNodePort > 0) {
    out.healthCheckNodePort = service.healthCheckNodePort;
  }
  const delay = annotationInt(a, MONITOR_DELAY, cfg.monitorDelay, 0, 2147483647);
  const timeout = annotationInt(a, MONITOR_TIMEOUT, cfg.monitorTimeout, 0, 2147483647);
  const retries = annotationInt(a, MONITOR_MAX_RETRIES, cfg.monitorMaxRetries, 1, 10);
  const retriesDown = annotationInt(a, MONITOR_MAX_RETRIES_DOWN, cfg.monitorMaxRetriesDown, 1, 10);
  if (delay.error !== null) out.error = delay.error;
  else if (timeout.error !== null) out.error = timeout.error;
  else if (retries.error !== null) out.error = retries.error;
  else if (retriesDown.error !== null) out.error = retriesDown.error;
  out.monitorDelay = <i32>delay.value;
  out.monitorTimeout = <i32>timeout.value;
  out.monitorMaxRetries = <i32>retries.value;
  out.monitorMaxRetriesDown = <i32>retriesDown.value;
}
