// The Service annotations cloud-provider-aws reads for an NLB, read strictly: a value that is present but wrong is
// Invalid naming the annotation, never silently the default.
import { annotationInt, invalid, PluginError, Service } from "@wasm-ccm/plugin-sdk";

const PREFIX = "service.beta.kubernetes.io/aws-load-balancer-";
export const TYPE = PREFIX + "type";
export const INTERNAL = PREFIX + "internal";
export const ADDITIONAL_TAGS = PREFIX + "additional-resource-tags";
export const TARGET_NODE_LABELS = PREFIX + "target-node-labels";
export const HC_PROTOCOL = PREFIX + "healthcheck-protocol";
export const HC_PORT = PREFIX + "healthcheck-port";
export const HC_PATH = PREFIX + "healthcheck-path";
export const HC_INTERVAL = PREFIX + "healthcheck-interval";
export const HC_TIMEOUT = PREFIX + "healthcheck-timeout";
export const HC_HEALTHY = PREFIX + "healthcheck-healthy-threshold";
export const HC_UNHEALTHY = PREFIX + "healthcheck-unhealthy-threshold";

export const TRAFFIC_PORT = "traffic-port";

export class HealthCheck {
  protocol: string = "TCP";
  /** "traffic-port" or a port number. */
  port: string = TRAFFIC_PORT;
  path: string = "";
  interval: i32 = 30;
  timeout: i32 = 10;
  /** Whether the timeout annotation is set: else ELBv2 keeps its own default, as upstream sends none. */
  timeoutSet: bool = false;
  healthy: i32 = 3;
  unhealthy: i32 = 3;
}

export class LbOptions {
  /** An `external` or `nlb-ip` type: the AWS Load Balancer Controller's, not ours. */
  external: bool = false;
  internal: bool = false;
  additionalTags: Map<string, string> = new Map();
  targetNodeLabels: Map<string, string> = new Map();
  health: HealthCheck = new HealthCheck();
  error: PluginError | null = null;
}

function bad(out: LbOptions, name: string, value: string, want: string): LbOptions {
  out.error = invalid("annotation " + name + ': "' + value + '" is not valid: want ' + want);
  return out;
}

export function readOptions(service: Service): LbOptions {
  const out = new LbOptions();
  const a = service.annotations;
  if (a.has(TYPE)) {
    const t = a.get(TYPE);
    // As upstream: nlb-ip is left to the AWS Load Balancer Controller without a word, like external.
    if (t == "external" || t == "nlb-ip") out.external = true;
    else if (t != "nlb") return bad(out, TYPE, t, "nlb, nlb-ip or external (no annotation: a Classic ELB)");
  }
  // As upstream: any value but "false" (and the empty string) makes the load balancer internal.
  out.internal = a.has(INTERNAL) && a.get(INTERNAL) != "" && a.get(INTERNAL) != "false";
  if (a.has(ADDITIONAL_TAGS) && !keyValues(a.get(ADDITIONAL_TAGS), out.additionalTags)) {
    return bad(out, ADDITIONAL_TAGS, a.get(ADDITIONAL_TAGS), "key=value pairs separated by commas");
  }
  // A label without a value (`pool` or `pool=`) asks only for the key, as upstream reads it.
  if (a.has(TARGET_NODE_LABELS) && !keyValues(a.get(TARGET_NODE_LABELS), out.targetNodeLabels)) {
    return bad(out, TARGET_NODE_LABELS, a.get(TARGET_NODE_LABELS), "labels (key or key=value) separated by commas");
  }
  return readHealthCheck(service, out);
}

function readHealthCheck(service: Service, out: LbOptions): LbOptions {
  const a = service.annotations;
  const h = out.health;
  if (service.externalTrafficPolicy == "Local" && service.healthCheckNodePort > 0) {
    // kube-proxy's health check server answers on the Service's health check node port; upstream's Local
    // defaults (10 s, 2 and 2) mark a draining node unhealthy in about 20 s.
    h.protocol = "HTTP";
    h.port = service.healthCheckNodePort.toString();
    h.path = "/healthz";
    h.interval = 10;
    h.healthy = 2;
    h.unhealthy = 2;
  }
  if (a.has(HC_PROTOCOL)) {
    const p = a.get(HC_PROTOCOL).toUpperCase();
    if (p != "TCP" && p != "HTTP" && p != "HTTPS") return bad(out, HC_PROTOCOL, a.get(HC_PROTOCOL), "TCP, HTTP or HTTPS");
    h.protocol = p;
    if (p != "TCP" && h.path == "") h.path = "/";
  }
  if (a.has(HC_PORT)) {
    const v = a.get(HC_PORT);
    if (v != TRAFFIC_PORT) {
      const port = annotationInt(a, HC_PORT, 0, 1, 65535);
      if (port.error !== null) return bad(out, HC_PORT, v, "traffic-port or a port number 1-65535");
    }
    h.port = v;
  }
  if (a.has(HC_PATH)) {
    const v = a.get(HC_PATH);
    if (!v.startsWith("/")) return bad(out, HC_PATH, v, "a path starting with /");
    h.path = v;
  }
  const interval = annotationInt(a, HC_INTERVAL, h.interval, 5, 300);
  if (interval.error !== null) return bad(out, HC_INTERVAL, a.get(HC_INTERVAL), "seconds, 5-300");
  const timeout = annotationInt(a, HC_TIMEOUT, h.timeout, 2, 120);
  if (timeout.error !== null) return bad(out, HC_TIMEOUT, a.get(HC_TIMEOUT), "seconds, 2-120");
  const healthy = annotationInt(a, HC_HEALTHY, h.healthy, 2, 10);
  if (healthy.error !== null) return bad(out, HC_HEALTHY, a.get(HC_HEALTHY), "a count, 2-10");
  const unhealthy = annotationInt(a, HC_UNHEALTHY, h.unhealthy, 2, 10);
  if (unhealthy.error !== null) return bad(out, HC_UNHEALTHY, a.get(HC_UNHEALTHY), "a count, 2-10");
  h.interval = <i32>interval.value;
  h.timeout = <i32>timeout.value;
  h.timeoutSet = a.has(HC_TIMEOUT);
  h.healthy = <i32>healthy.value;
  h.unhealthy = <i32>unhealthy.value;
  return out;
}

/** "k1=v1,k2=v2" into `into`; a key without `=` has the empty value; false for an empty key or no pair. */
export function keyValues(text: string, into: Map<string, string>): bool {
  const parts = text.split(",");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i].trimStart().trimEnd();
    if (part == "") continue;
    const eq = part.indexOf("=");
    if (eq == 0) return false;
    const key = eq < 0 ? part : part.substring(0, eq).trimStart().trimEnd();
    into.set(key, eq < 0 ? "" : part.substring(eq + 1).trimStart().trimEnd());
  }
  return into.size > 0;
}
