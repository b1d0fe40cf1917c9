// The [Global] keys of cloud-provider-aws's cloud config beyond placement, VPC and cluster ID (config.ts reads those):
// each is honoured, refused by name, or accepted with a warning naming it, so no key of upstream's file goes unread
// without a word. Keys are lower-cased here (gcfg matches them without regard to case).
import { annotationInt, Service } from "@wasm-ccm/plugin-sdk";
import { HealthCheck } from "./lb-options";

export const PROBE_SERVICE_NODE_PORT = "ServiceNodePort";
export const PROBE_SHARED = "Shared";

/**
 * ClusterServiceLoadBalancerHealthProbeMode: `ServiceNodePort` (the default) checks each port's NodePort; `Shared`
 * checks kube-proxy's health server (HTTP <port>/<path>, default 10256 /healthz) for every Service that is not
 * externalTrafficPolicy Local, as upstream does.
 */
export class ProbeMode {
  mode: string = "";
  port: i32 = 0;
  path: string = "";
  portText: string = "";

  get shared(): bool {
    return this.mode == PROBE_SHARED;
  }

  sharedPort(): string {
    return this.port != 0 ? this.port.toString() : "10256";
  }

  sharedPath(): string {
    return this.path != "" ? this.path : "/healthz";
  }

  /**
   * In Shared mode, a Service that is not externalTrafficPolicy Local is checked at kube-proxy's health server,
   * whatever its health check annotations say of protocol, port and path (as upstream overrides them).
   */
  apply(service: Service, h: HealthCheck): void {
    if (!this.shared || service.externalTrafficPolicy == "Local") return;
    h.protocol = "HTTP";
    h.port = this.sharedPort();
    h.path = this.sharedPath();
  }

  /** The keys' values together, once every key is read: null when they are good. */
  check(): string | null {
    if (this.mode != "" && this.mode != PROBE_SHARED && this.mode != PROBE_SERVICE_NODE_PORT) {
      return "[Global] ClusterServiceLoadBalancerHealthProbeMode " + this.mode + " is not Shared or ServiceNodePort";
    }
    if (this.portText != "") {
      const m = new Map<string, string>();
      m.set("p", this.portText);
      const port = annotationInt(m, "p", 0, 1, 65535);
      if (port.error !== null) {
        return "[Global] ClusterServiceSharedLoadBalancerHealthProbePort " + this.portText + " is not a port 1-65535";
      }
      this.port = <i32>port.value;
    }
    if (this.path != "" && !this.path.startsWith("/")) {
      return "[Global] ClusterServiceSharedLoadBalancerHealthProbePath " + this.path + " does not start with /";
    }
    return null;
  }
}

// Upstream's keys this plugin has no part in: accepted (one file serves both CCMs), each with a warning at start.
const WARNED = new Map<string, string>();
WARNED.set("nlbsecuritygroupmode", "NLBSecurityGroupMode: this plugin attaches no security group to an NLB");
WARNED.set(
  "supportedtopologyinstancetypepattern",
  "SupportedTopologyInstanceTypePattern: this plugin adds no topology.k8s.aws/network-node-layer-* labels",
);

// Keys whose silent omission would change who acts: refused with what to do instead.
const REFUSED = new Map<string, string>();
REFUSED.set(
  "rolearn",
  "RoleARN is not supported: the host signs every request; name the role in its credentials entry (awsSigV4 roleARN)",
);
REFUSED.set("sourcearn", "SourceARN is not supported: the host's credentials entry assumes any role, not the plugin");

/**
 * One [Global] key config.ts does not read itself. Returns null when it is honoured or accepted (a warning pushed to
 * `warnings`), else why it is refused.
 */
export function otherGlobalKey(probe: ProbeMode, key: string, value: string, warnings: string[]): string | null {
  if (key == "clusterserviceloadbalancerhealthprobemode") probe.mode = value;
  else if (key == "clusterservicesharedloadbalancerhealthprobeport") probe.portText = value;
  else if (key == "clusterservicesharedloadbalancerhealthprobepath") probe.path = value;
  else if (key == "nodeipfamilies") return ipFamily(value);
  else if (WARNED.has(key)) warnings.push("[Global] " + WARNED.get(key) + "; the key has no effect");
  else if (REFUSED.has(key)) return REFUSED.get(key);
  else return "unknown key " + key + " (cloud-provider-aws has no such key either)";
  return null;
}

/** NodeIPFamilies (one value per line in gcfg): this plugin gives IPv4 addresses only. */
function ipFamily(value: string): string | null {
  if (value.toLowerCase() == "ipv4") return null;
  return "NodeIPFamilies " + value + " is not supported: this plugin gives Nodes IPv4 addresses only";
}
