// What a Service asks of its NLB beyond listeners and health checks (lb-options.ts): TLS listeners (`-ssl-cert`,
// `-ssl-ports`, `-ssl-negotiation-policy`, `-backend-protocol: ssl`), load balancer attributes (cross-zone, access
// logs), target group attributes, the `-subnets` annotation; and the Service fields upstream refuses for any AWS load
// balancer (sessionAffinity ClientIP, mixed protocols, loadBalancerIP). Read strictly, as upstream reads them; an
// annotation upstream honours for an NLB that this plugin does not implement is refused by name, never dropped.
import { invalid, PluginError, Service, ServicePort } from "@wasm-ccm/plugin-sdk";
import { keyValues } from "./lb-options";
import { SUBNETS_ANNOTATION } from "./subnets";

const PREFIX = "service.beta.kubernetes.io/aws-load-balancer-";
export const CROSS_ZONE = PREFIX + "cross-zone-load-balancing-enabled";
export const ACCESS_LOG_ENABLED = PREFIX + "access-log-enabled";
export const ACCESS_LOG_BUCKET = PREFIX + "access-log-s3-bucket-name";
export const ACCESS_LOG_PREFIX = PREFIX + "access-log-s3-bucket-prefix";
export const TG_ATTRIBUTES = PREFIX + "target-group-attributes";
export const SSL_CERT = PREFIX + "ssl-cert";
export const SSL_PORTS = PREFIX + "ssl-ports";
export const SSL_POLICY = PREFIX + "ssl-negotiation-policy";
export const BACKEND_PROTOCOL = PREFIX + "backend-protocol";

export const ATTR_CROSS_ZONE = "load_balancing.cross_zone.enabled";
export const ATTR_ACCESS_LOGS = "access_logs.s3.enabled";
const ATTR_ACCESS_BUCKET = "access_logs.s3.bucket";
const ATTR_ACCESS_PREFIX = "access_logs.s3.prefix";
export const TG_PRESERVE_CLIENT_IP = "preserve_client_ip.enabled";
export const TG_PROXY_PROTOCOL_V2 = "proxy_protocol_v2.enabled";

// Upstream's NLB annotations this plugin does not implement, and why: refused so the Service shows it in an Event.
const NOT_IMPLEMENTED = new Map<string, string>();
NOT_IMPLEMENTED.set(PREFIX + "eip-allocations", "Elastic IP allocations for an NLB are not implemented by this plugin");
NOT_IMPLEMENTED.set(PREFIX + "private-ipv4-addresses", "fixed private addresses for an NLB are not implemented by this plugin");
NOT_IMPLEMENTED.set(PREFIX + "security-groups", "an NLB takes no security groups of the Service's choosing (upstream refuses it too)");
NOT_IMPLEMENTED.set(PREFIX + "extra-security-groups", "an NLB takes no security groups of the Service's choosing (upstream refuses it too)");

export class NlbOptions {
  /** Load balancer attributes as upstream wants them on every NLB (cross-zone and access logs always said). */
  lbAttributes: Map<string, string> = new Map();
  /** Target group attributes of the annotation; empty when it is absent (the groups keep what they have). */
  tgAttributes: Map<string, string> = new Map();
  certificate: string = "";
  sslPolicy: string = "";
  /** `-ssl-ports` by name and number; both empty (absent or `*`): every TCP port. */
  sslPortNames: string[] = [];
  sslPortNumbers: i32[] = [];
  backendTls: bool = false;
  /** The `-subnets` annotation's entries (IDs or Name tags); empty: discovery. */
  subnets: string[] = [];
  /**
   * The source ranges (spec, else the legacy annotation, else 0.0.0.0/0) the instances' groups let in; filled by the
   * ensure only when it makes those rules (loadbalancer.ts), so that nothing else refuses a range they cannot hold.
   */
  clientCidrs: string[] = [];
  error: PluginError | null = null;

  /** TLS for a TCP port the certificate covers, else the port's own protocol. */
  frontendProtocol(port: ServicePort): string {
    if (this.certificate == "" || port.protocol != "TCP") return port.protocol;
    const all = this.sslPortNames.length == 0 && this.sslPortNumbers.length == 0;
    return all || this.sslPortNumbers.includes(port.port) || this.sslPortNames.includes(port.name) ? "TLS" : port.protocol;
  }

  /** The target group's protocol: TLS to the nodes too when the backend protocol is ssl. */
  trafficProtocol(port: ServicePort): string {
    const front = this.frontendProtocol(port);
    return front == "TLS" && !this.backendTls ? "TCP" : front;
  }
}

function bad(out: NlbOptions, name: string, value: string, want: string): NlbOptions {
  out.error = invalid("annotation " + name + ': "' + value + '" is not valid: want ' + want);
  return out;
}

/** Go's strconv.ParseBool, which upstream reads these annotations with: 1 when true, 0 when false, -1 otherwise. */
export function parseBool(text: string): i32 {
  if (text == "1" || text == "t" || text == "T" || text == "TRUE" || text == "true" || text == "True") return 1;
  if (text == "0" || text == "f" || text == "F" || text == "FALSE" || text == "false" || text == "False") return 0;
  return -1;
}

export function readNlbOptions(service: Service): NlbOptions {
  const out = new NlbOptions();
  const a = service.annotations;
  const names = NOT_IMPLEMENTED.keys();
  for (let i = 0; i < names.length; i++) {
    if (a.has(names[i])) {
      out.error = invalid("annotation " + names[i] + " is not supported: " + NOT_IMPLEMENTED.get(names[i]));
      return out;
    }
  }
  const crossZone = a.has(CROSS_ZONE) ? a.get(CROSS_ZONE) : "";
  if (crossZone != "" && parseBool(crossZone) < 0) return bad(out, CROSS_ZONE, crossZone, "true or false");
  out.lbAttributes.set(ATTR_CROSS_ZONE, parseBool(crossZone) == 1 ? "true" : "false");
  const logs = a.has(ACCESS_LOG_ENABLED) ? a.get(ACCESS_LOG_ENABLED) : "";
  if (logs != "" && parseBool(logs) < 0) return bad(out, ACCESS_LOG_ENABLED, logs, "true or false");
  out.lbAttributes.set(ATTR_ACCESS_LOGS, parseBool(logs) == 1 ? "true" : "false");
  if (parseBool(logs) == 1) {
    // ELBv2 refuses an empty bucket: only an enabled log says where it goes, as upstream.
    out.lbAttributes.set(ATTR_ACCESS_BUCKET, a.has(ACCESS_LOG_BUCKET) ? a.get(ACCESS_LOG_BUCKET) : "");
    out.lbAttributes.set(ATTR_ACCESS_PREFIX, a.has(ACCESS_LOG_PREFIX) ? a.get(ACCESS_LOG_PREFIX) : "");
  }
  if (a.has(TG_ATTRIBUTES)) {
    const error = readTgAttributes(service, a.get(TG_ATTRIBUTES), out.tgAttributes);
    if (error !== null) return bad(out, TG_ATTRIBUTES, a.get(TG_ATTRIBUTES), error);
  }
  readTls(a, out);
  if (a.has(SUBNETS_ANNOTATION)) {
    out.subnets = commaList(a.get(SUBNETS_ANNOTATION));
    if (out.subnets.length == 0) return bad(out, SUBNETS_ANNOTATION, a.get(SUBNETS_ANNOTATION), "subnet IDs or Name tags separated by commas");
  }
  return out;
}

function readTls(a: Map<string, string>, out: NlbOptions): void {
  out.certificate = a.has(SSL_CERT) ? a.get(SSL_CERT) : "";
  out.sslPolicy = a.has(SSL_POLICY) ? a.get(SSL_POLICY) : "";
  out.backendTls = a.has(BACKEND_PROTOCOL) && a.get(BACKEND_PROTOCOL) == "ssl";
  const ports = a.has(SSL_PORTS) ? a.get(SSL_PORTS) : "";
  if (ports == "" || ports == "*") return;
  // As upstream's getPortSets: a number is a port number, anything else a port name; no spaces are trimmed.
  const items = ports.split(",");
  for (let i = 0; i < items.length; i++) {
    const n = numberOf(items[i]);
    if (n >= 0) out.sslPortNumbers.push(n);
    else out.sslPortNames.push(items[i]);
  }
}

function numberOf(text: string): i32 {
  if (text.length == 0 || text.length > 9) return -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return -1;
  }
  return I32.parseInt(text);
}

/** Upstream's checks: the two attributes it supports, true or false, client IP kept for UDP. Null when good. */
function readTgAttributes(service: Service, text: string, into: Map<string, string>): string | null {
  if (!keyValues(text, into)) return "key=value pairs separated by commas";
  const keys = into.keys();
  for (let i = 0; i < keys.length; i++) {
    const value = into.get(keys[i]);
    if (keys[i] != TG_PRESERVE_CLIENT_IP && keys[i] != TG_PROXY_PROTOCOL_V2) {
      return TG_PRESERVE_CLIENT_IP + " or " + TG_PROXY_PROTOCOL_V2 + " (" + keys[i] + " is not supported)";
    }
    if (value != "true" && value != "false") return keys[i] + "=true or " + keys[i] + "=false";
    if (keys[i] == TG_PRESERVE_CLIENT_IP && value == "false") {
      for (let p = 0; p < service.ports.length; p++) {
        if (service.ports[p].protocol == "UDP") return TG_PRESERVE_CLIENT_IP + "=true for UDP ports (AWS keeps their client IP)";
      }
    }
  }
  return null;
}

function commaList(text: string): string[] {
  const out: string[] = [];
  const parts = text.split(",");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i].trimStart().trimEnd();
    if (part != "") out.push(part);
  }
  return out;
}

/** What upstream refuses of any AWS load balancer's Service before it calls AWS. */
export function checkServiceSpec(service: Service): PluginError | null {
  if (service.sessionAffinity != "" && service.sessionAffinity != "None") {
    return invalid("sessionAffinity " + service.sessionAffinity + " is not supported by an AWS load balancer");
  }
  if (service.ports.length == 0) return invalid("a load balancer needs at least one Service port");
  for (let i = 1; i < service.ports.length; i++) {
    if (service.ports[i].protocol != service.ports[0].protocol) {
      return invalid("mixed protocols (" + service.ports[0].protocol + " and " + service.ports[i].protocol + ") are not supported by an AWS load balancer");
    }
  }
  if (service.loadBalancerIP != "") return invalid("loadBalancerIP cannot be specified for an AWS load balancer");
  return null;
}
