// What a Service asks of its devcloud load balancer: the spec fields that come from the Service itself (ports, source
// ranges, health-check node port) and the service.beta.kubernetes.io/devcloud-* annotations. Every bad value is an
// Invalid error naming the annotation or field and the value, so `kubectl describe service` says what to fix.
import { Node, PluginError, Service, invalid } from "@wasm-ccm/plugin-sdk";
import { isIPv4, isLabelKey, isLabelToken } from "./names";

export const ANNOTATION_PREFIX = "service.beta.kubernetes.io/devcloud-";
export const VIP = ANNOTATION_PREFIX + "vip";
export const DESCRIPTION = ANNOTATION_PREFIX + "description";
export const BACKEND_SELECTOR = ANNOTATION_PREFIX + "backend-label-selector";
export const HEALTH_CHECK_PORT = ANNOTATION_PREFIX + "health-check-port";
const KNOWN = [VIP, DESCRIPTION, BACKEND_SELECTOR, HEALTH_CHECK_PORT];
const MAX_DESCRIPTION = 255;

export class LbOptions {
  /** The VIP asked for ("" = devcloud chooses) and where the request came from, for messages. */
  vip: string = "";
  vipSource: string = "";
  description: string = "";
  /** Node label requirements, all of which a backend must meet: key=value, or key alone (present). */
  selectorKeys: string[] = [];
  selectorValues: string[] = [];
  selectorHasValue: bool[] = [];
  /** The selector annotation as written ("" for none): equal texts select the same backends. */
  selectorText: string = "";
  /** 0 = no health check. */
  healthCheckNodePort: i32 = 0;
  error: PluginError | null = null;

  /** Whether a node may be a backend under the label selector. */
  selects(node: Node): bool {
    for (let i = 0; i < this.selectorKeys.length; i++) {
      const key = this.selectorKeys[i];
      if (!node.labels.has(key)) return false;
      if (this.selectorHasValue[i] && node.labels.get(key) != this.selectorValues[i]) return false;
    }
    return true;
  }
}

function bad(opts: LbOptions, message: string): LbOptions {
  opts.error = invalid(message);
  return opts;
}

function annotation(svc: Service, key: string): string | null {
  return svc.annotations.has(key) ? svc.annotations.get(key) : null;
}

function parsePort(text: string): i32 {
  const s = text.trimStart().trimEnd();
  if (s.length == 0 || s.length > 5) return 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return 0;
  }
  const n = I32.parseInt(s);
  return n >= 1 && n <= 65535 ? n : 0;
}

export function parseOptions(svc: Service, cluster: string): LbOptions {
  const opts = new LbOptions();
  const keys = svc.annotations.keys();
  for (let i = 0; i < keys.length; i++) {
    if (keys[i].startsWith(ANNOTATION_PREFIX) && !KNOWN.includes(keys[i])) {
      return bad(opts, "unknown annotation " + keys[i] + " (known: " + KNOWN.join(", ") + ")");
    }
  }

  if (svc.ipFamilies.length > 0 && !svc.ipFamilies.includes("IPv4")) {
    return bad(opts, "spec.ipFamilies " + svc.ipFamilies.join(",") + ": devcloud load balancers are IPv4 only");
  }
  for (let i = 0; i < svc.ports.length; i++) {
    if (svc.ports[i].nodePort <= 0) {
      const where = "spec.ports[" + i.toString() + "]";
      return bad(opts, where + " has no nodePort: devcloud load balancers forward to node ports");
    }
  }

  const vip = annotation(svc, VIP);
  if (vip !== null) {
    if (!isIPv4(vip)) return bad(opts, "annotation " + VIP + ': "' + vip + '" is not an IPv4 address');
    opts.vip = vip;
    opts.vipSource = "annotation " + VIP;
  }
  const requested = svc.loadBalancerIP;
  if (requested.length > 0) {
    if (!isIPv4(requested)) {
      return bad(opts, 'spec.loadBalancerIP: "' + requested + '" is not an IPv4 address (devcloud VIPs are IPv4)');
    }
    if (opts.vip.length > 0 && opts.vip != requested) {
      return bad(opts, "annotation " + VIP + ' "' + opts.vip + '" and spec.loadBalancerIP "' + requested + '" differ');
    }
    if (opts.vip.length == 0) {
      opts.vip = requested;
      opts.vipSource = "spec.loadBalancerIP";
    }
  }

  const description = annotation(svc, DESCRIPTION);
  if (description !== null) {
    if (description.length > MAX_DESCRIPTION) {
      return bad(opts, "annotation " + DESCRIPTION + ": longer than " + MAX_DESCRIPTION.toString() + " characters");
    }
    opts.description = description;
  } else {
    const text = "Kubernetes service " + svc.namespace + "/" + svc.name + " (cluster " + cluster + ")";
    opts.description = text.length > MAX_DESCRIPTION ? text.substring(0, MAX_DESCRIPTION) : text;
  }

  const selector = annotation(svc, BACKEND_SELECTOR);
  if (selector !== null) {
    opts.selectorText = selector;
    const parts = selector.split(",");
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i].trimStart().trimEnd();
      const eq = part.indexOf("=");
      const key = eq < 0 ? part : part.substring(0, eq).trimStart().trimEnd();
      const value = eq < 0 ? "" : part.substring(eq + 1).trimStart().trimEnd();
      if (!isLabelKey(key) || (eq >= 0 && !isLabelToken(value, true))) {
        const what = part.length == 0 ? "an empty requirement" : '"' + part + '"';
        return bad(
          opts,
          "annotation " + BACKEND_SELECTOR + ': "' + selector + '": ' + what + " is not key or key=value",
        );
      }
      opts.selectorKeys.push(key);
      opts.selectorValues.push(value);
      opts.selectorHasValue.push(eq >= 0);
    }
  }

  // With externalTrafficPolicy Local, kube-proxy answers health checks on the Service's own node port; the
  // annotation is for Cluster policy (e.g. kube-proxy's 10256 /healthz).
  if (svc.externalTrafficPolicy == "Local" && svc.healthCheckNodePort > 0) {
    opts.healthCheckNodePort = svc.healthCheckNodePort;
  } else {
    const hc = annotation(svc, HEALTH_CHECK_PORT);
    if (hc !== null) {
      const port = parsePort(hc);
      if (port == 0) return bad(opts, "annotation " + HEALTH_CHECK_PORT + ': "' + hc + '" is not a port (1-65535)');
      opts.healthCheckNodePort = port;
    }
  }
  return opts;
}
