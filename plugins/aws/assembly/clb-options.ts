// The Service annotations cloud-provider-aws reads for a Classic ELB, read strictly: a value that is present but wrong
// is Invalid naming the annotation (the service controller shows it as an Event on the Service), never silently
// dropped. The listener annotations are read in clb-listeners.ts, the security group ones in clb-groups.ts.
import { annotationInt, invalid, PluginError, Service } from "@wasm-ccm/plugin-sdk";
import { ClbAttributes, ClbHealthCheck } from "./clb-api";
import { ClbTls, defaultCheckProtocol, readClbTls } from "./clb-listeners";
import { readClientCidrs } from "./source-ranges";
import {
  ADDITIONAL_TAGS,
  HC_HEALTHY,
  HC_INTERVAL,
  HC_PATH,
  HC_PORT,
  HC_PROTOCOL,
  HC_TIMEOUT,
  HC_UNHEALTHY,
  INTERNAL,
  TARGET_NODE_LABELS,
  TRAFFIC_PORT,
} from "./lb-options";

const PREFIX = "service.beta.kubernetes.io/aws-load-balancer-";
export const ACCESS_LOG_ENABLED = PREFIX + "access-log-enabled";
export const ACCESS_LOG_INTERVAL = PREFIX + "access-log-emit-interval";
export const ACCESS_LOG_BUCKET = PREFIX + "access-log-s3-bucket-name";
export const ACCESS_LOG_PREFIX = PREFIX + "access-log-s3-bucket-prefix";
export const DRAINING_ENABLED = PREFIX + "connection-draining-enabled";
export const DRAINING_TIMEOUT = PREFIX + "connection-draining-timeout";
export const IDLE_TIMEOUT = PREFIX + "connection-idle-timeout";
export const CROSS_ZONE = PREFIX + "cross-zone-load-balancing-enabled";
/** The legacy source-ranges annotation, read when spec.loadBalancerSourceRanges is empty (as upstream's helper). */

export const SUBNETS = PREFIX + "subnets";
export const SECURITY_GROUPS = PREFIX + "security-groups";
export const EXTRA_SECURITY_GROUPS = PREFIX + "extra-security-groups";
/** Annotations of an NLB, which a Classic ELB has no place for (upstream refuses the first, ignores the others). */
const NLB_ONLY: string[] = [
  PREFIX + "target-group-attributes",
  PREFIX + "eip-allocations",
  PREFIX + "private-ipv4-addresses",
  PREFIX + "nlb-target-type",
];

// Upstream's defaults for a Classic ELB's health check (defaultElbHC*).
const HC_DEFAULT_HEALTHY = 2;
const HC_DEFAULT_UNHEALTHY = 6;
const HC_DEFAULT_TIMEOUT = 5;
const HC_DEFAULT_INTERVAL = 10;

export class ClbOptions {
  internal: bool = false;
  additionalTags: Map<string, string> = new Map();
  /** Label -> value; "" matches any value of the label (a key without `=`), as upstream. */
  targetNodeLabels: Map<string, string> = new Map();
  sourceRanges: string[] = [];
  attributes: ClbAttributes = new ClbAttributes();
  tls: ClbTls = new ClbTls();
  /** The security-groups annotation's groups (bring your own: no managed group), then extra-security-groups'. */
  securityGroups: string[] = [];
  extraSecurityGroups: string[] = [];
  /** The subnets annotation's entries (IDs or Name tags); empty: discovered. */
  subnets: string[] = [];
  error: PluginError | null = null;
}

function bad(out: ClbOptions, name: string, value: string, want: string): ClbOptions {
  out.error = invalid("annotation " + name + ': "' + value + '" is not valid: want ' + want);
  return out;
}

export function readClbOptions(service: Service): ClbOptions {
  const out = new ClbOptions();
  const a = service.annotations;
  for (let i = 0; i < NLB_ONLY.length; i++) {
    if (a.has(NLB_ONLY[i])) {
      out.error = invalid("annotation " + NLB_ONLY[i] + " applies to an NLB only (aws-load-balancer-type: nlb)");
      return out;
    }
  }
  out.error = readClbTls(a, out.tls);
  if (out.error !== null) return out;
  readGroupLists(a, out.securityGroups, out.extraSecurityGroups);
  if (a.has(SUBNETS)) out.subnets = commaList(a.get(SUBNETS));
  // As upstream: any value but "false" (and the empty string) makes the load balancer internal.
  out.internal = a.has(INTERNAL) && a.get(INTERNAL) != "" && a.get(INTERNAL) != "false";
  if (a.has(ADDITIONAL_TAGS) && !keyValues(a.get(ADDITIONAL_TAGS), out.additionalTags)) {
    return bad(out, ADDITIONAL_TAGS, a.get(ADDITIONAL_TAGS), "key=value pairs separated by commas");
  }
  if (a.has(TARGET_NODE_LABELS) && !keyValues(a.get(TARGET_NODE_LABELS), out.targetNodeLabels)) {
    return bad(out, TARGET_NODE_LABELS, a.get(TARGET_NODE_LABELS), "label=value or label, separated by commas");
  }
  // Each range as its network (10.1.2.3/16 is 10.1.0.0/16), as upstream's source range set holds it; IPv4 only.
  out.error = readClientCidrs(service, out.sourceRanges);
  if (out.error !== null) return out;
  return readAttributes(a, out);
}

function readAttributes(a: Map<string, string>, out: ClbOptions): ClbOptions {
  const attrs = out.attributes;
  const names = [ACCESS_LOG_ENABLED, DRAINING_ENABLED, CROSS_ZONE];
  for (let i = 0; i < names.length; i++) {
    if (!a.has(names[i]) || a.get(names[i]) == "") continue;
    const v = goBool(a.get(names[i]));
    if (v < 0) return bad(out, names[i], a.get(names[i]), "true or false");
    if (i == 0) attrs.accessLogEnabled = v == 1;
    else if (i == 1) attrs.drainingEnabled = v == 1;
    else attrs.crossZone = v == 1;
  }
  const interval = annotationInt(a, ACCESS_LOG_INTERVAL, 0, 5, 60);
  if (interval.error !== null || (interval.present && interval.value != 5 && interval.value != 60)) {
    return bad(out, ACCESS_LOG_INTERVAL, a.get(ACCESS_LOG_INTERVAL), "5 or 60 (minutes)");
  }
  attrs.accessLogInterval = <i32>interval.value;
  if (a.has(ACCESS_LOG_BUCKET)) attrs.accessLogBucket = a.get(ACCESS_LOG_BUCKET);
  if (a.has(ACCESS_LOG_PREFIX)) attrs.accessLogPrefix = a.get(ACCESS_LOG_PREFIX);
  if (attrs.accessLogEnabled && attrs.accessLogBucket == "") {
    return bad(out, ACCESS_LOG_BUCKET, "", "the S3 bucket of the access logs (access-log-enabled is true)");
  }
  const draining = annotationInt(a, DRAINING_TIMEOUT, 0, 1, 3600);
  if (draining.error !== null) return bad(out, DRAINING_TIMEOUT, a.get(DRAINING_TIMEOUT), "seconds, 1-3600");
  attrs.drainingTimeout = <i32>draining.value;
  const idle = annotationInt(a, IDLE_TIMEOUT, 60, 1, 4000);
  if (idle.error !== null) return bad(out, IDLE_TIMEOUT, a.get(IDLE_TIMEOUT), "seconds, 1-4000");
  attrs.idleTimeout = <i32>idle.value;
  return out;
}

/** "a, b,,c" -> ["a", "b", "c"]: entries trimmed, empty ones dropped (upstream's getSGListFromAnnotation). */
export function commaList(text: string): string[] {
  const out: string[] = [];
  const parts = text.split(",");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i].trimStart().trimEnd();
    if (part != "" && !out.includes(part)) out.push(part);
  }
  return out;
}

/** The two security group annotations' group IDs (extra ones that are also the Service's own left out). */
export function readGroupLists(a: Map<string, string>, own: string[], extra: string[]): void {
  if (a.has(SECURITY_GROUPS)) {
    const list = commaList(a.get(SECURITY_GROUPS));
    for (let i = 0; i < list.length; i++) own.push(list[i]);
  }
  if (a.has(EXTRA_SECURITY_GROUPS)) {
    const list = commaList(a.get(EXTRA_SECURITY_GROUPS));
    for (let i = 0; i < list.length; i++) if (!own.includes(list[i])) extra.push(list[i]);
  }
}

/** Go's strconv.ParseBool: 1 true, 0 false, -1 not a boolean. */
function goBool(v: string): i32 {
  if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") return 1;
  if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False") return 0;
  return -1;
}

/** As upstream's getKeyValuePropertiesFromAnnotation: "k1=v1,k2" -> {k1: v1, k2: ""}, blanks trimmed; an empty key is refused. */
function keyValues(text: string, into: Map<string, string>): bool {
  const parts = text.split(",");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i].trimStart().trimEnd();
    if (part == "") continue;
    const eq = part.indexOf("=");
    const key = (eq < 0 ? part : part.substring(0, eq)).trimStart().trimEnd();
    if (key == "") return false;
    into.set(key, eq < 0 ? "" : part.substring(eq + 1).trimStart().trimEnd());
  }
  return true;
}

export class HealthCheckResult {
  check: ClbHealthCheck = new ClbHealthCheck();
  error: PluginError | null = null;
}

function failHc(out: HealthCheckResult, a: Map<string, string>, name: string, want: string): HealthCheckResult {
  out.error = invalid("annotation " + name + ': "' + a.get(name) + '" is not valid: want ' + want);
  return out;
}

/**
 * The health check upstream gives a Classic ELB: TCP on the first listener's NodePort, or HTTP on the health check
 * node port at /healthz for externalTrafficPolicy Local (healthcheck-port "traffic-port" puts it on the first
 * NodePort); the protocol, port and path annotations override those, the count and time annotations the defaults.
 */
export function clbHealthCheck(service: Service, firstNodePort: i32): HealthCheckResult {
  const out = new HealthCheckResult();
  const a = service.annotations;
  let protocol = defaultCheckProtocol(a);
  let port = firstNodePort;
  let path = "";
  if (service.externalTrafficPolicy == "Local" && service.healthCheckNodePort > 0) {
    protocol = "HTTP";
    path = "/healthz";
    port = a.has(HC_PORT) && a.get(HC_PORT) == TRAFFIC_PORT ? firstNodePort : service.healthCheckNodePort;
  }
  if (a.has(HC_PROTOCOL)) {
    protocol = a.get(HC_PROTOCOL).toUpperCase();
    if (protocol != "TCP" && protocol != "HTTP" && protocol != "HTTPS" && protocol != "SSL") return failHc(out, a, HC_PROTOCOL, "TCP, HTTP, HTTPS or SSL");
  }
  if (a.has(HC_PORT) && a.get(HC_PORT) != TRAFFIC_PORT) {
    const p = annotationInt(a, HC_PORT, 0, 1, 65535);
    if (p.error !== null) return failHc(out, a, HC_PORT, "traffic-port or a port number 1-65535");
    port = <i32>p.value;
  }
  if (a.has(HC_PATH) && a.get(HC_PATH) != "" && !a.get(HC_PATH).startsWith("/")) return failHc(out, a, HC_PATH, "a path starting with /");
  if (protocol == "HTTP" || protocol == "HTTPS") {
    if (path == "") path = "/";
    if (a.has(HC_PATH) && a.get(HC_PATH) != "") path = a.get(HC_PATH);
  } else {
    path = "";
  }
  const h = out.check;
  h.target = protocol + ":" + port.toString() + path;
  const interval = annotationInt(a, HC_INTERVAL, HC_DEFAULT_INTERVAL, 5, 300);
  if (interval.error !== null) return failHc(out, a, HC_INTERVAL, "seconds, 5-300");
  const timeout = annotationInt(a, HC_TIMEOUT, HC_DEFAULT_TIMEOUT, 2, 60);
  if (timeout.error !== null) return failHc(out, a, HC_TIMEOUT, "seconds, 2-60");
  const healthy = annotationInt(a, HC_HEALTHY, HC_DEFAULT_HEALTHY, 2, 10);
  if (healthy.error !== null) return failHc(out, a, HC_HEALTHY, "a count, 2-10");
  const unhealthy = annotationInt(a, HC_UNHEALTHY, HC_DEFAULT_UNHEALTHY, 2, 10);
  if (unhealthy.error !== null) return failHc(out, a, HC_UNHEALTHY, "a count, 2-10");
  h.interval = <i32>interval.value;
  h.timeout = <i32>timeout.value;
  h.healthy = <i32>healthy.value;
  h.unhealthy = <i32>unhealthy.value;
  if (h.timeout >= h.interval) {
    out.error = invalid("annotation " + HC_TIMEOUT + ": " + h.timeout.toString() + " s is not less than the interval (" + h.interval.toString() + " s)");
  }
  return out;
}
