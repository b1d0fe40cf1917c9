// Names and tags as cloud-provider-aws gives them, so that either CCM finds and owns the other's load balancers.
import { Service } from "@wasm-ccm/plugin-sdk";
import { sha1Hex } from "./sha1";

export const CLUSTER_TAG_PREFIX = "kubernetes.io/cluster/";
export const SERVICE_NAME_TAG = "kubernetes.io/service-name";
/** The cluster tag before kubernetes.io/cluster/<id>: its value is the cluster ID. Upstream still reads it. */
export const LEGACY_CLUSTER_TAG = "KubernetesCluster";

/** k8s.io/cloud-provider's DefaultLoadBalancerName: "a" and the UID without dashes, at most 32 characters. */
export function loadBalancerName(service: Service): string {
  const name = "a" + service.uid.replaceAll("-", "");
  return name.length > 32 ? name.substring(0, 32) : name;
}

export function clusterTag(clusterID: string): string {
  return CLUSTER_TAG_PREFIX + clusterID;
}

/** k8s-<namespace:8>-<name:8>-<sha1:10>, the hash over what a target group cannot change once made. */
export function targetGroupName(
  clusterID: string,
  service: Service,
  port: i32,
  nodePort: i32,
  protocol: string,
  targetType: string,
  healthProtocol: string,
  healthInterval: i32,
): string {
  const hash = sha1Hex(
    clusterID + service.namespace + service.name + port.toString() + nodePort.toString() + protocol + targetType +
      healthProtocol + healthInterval.toString(),
  );
  return "k8s-" + prefix(alnum(service.namespace), 8) + "-" + prefix(alnum(service.name), 8) + "-" + hash.substring(0, 10);
}

function alnum(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) out += String.fromCharCode(c);
  }
  return out;
}

function prefix(s: string, n: i32): string {
  return s.length > n ? s.substring(0, n) : s;
}
