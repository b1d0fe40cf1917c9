// OCCM's names for what it makes in Octavia, so that a load balancer looks the same whichever CCM made it:
// `kube_service_<cluster>_<namespace>_<name>` (at most 255 characters), `listener_<i>_<lb name>`, `pool_<i>_...`,
// `monitor_<i>_...` for the i-th Service port; the load balancer and its listeners tagged with the load balancer's
// name. One tag of this plugin's own, the Service UID, tells a Service's load balancer from that of a deleted Service
// of the same name whose deletion has not finished.
import { Service } from "@wasm-ccm/plugin-sdk";

export const SERVICE_PREFIX = "kube_service_";
// Not under SERVICE_PREFIX: OCCM counts such tags as Services sharing the load balancer and would never delete it.
export const UID_TAG_PREFIX = "kubernetes-service-uid=";

export function cut255(text: string): string {
  return text.length > 255 ? text.substring(0, 255) : text;
}

export function loadBalancerName(clusterName: string, service: Service): string {
  return cut255(SERVICE_PREFIX + clusterName + "_" + service.namespace + "_" + service.name);
}

/** cloudprovider.DefaultLoadBalancerName: "a" and the UID without dashes, 32 characters; OCCM looks it up too. */
export function legacyName(service: Service): string {
  const name = "a" + service.uid.replaceAll("-", "");
  return name.length > 32 ? name.substring(0, 32) : name;
}

export function listenerName(index: i32, lbName: string): string {
  return cut255("listener_" + index.toString() + "_" + lbName);
}

export function poolName(index: i32, lbName: string): string {
  return cut255("pool_" + index.toString() + "_" + lbName);
}

export function monitorName(index: i32, lbName: string): string {
  return cut255("monitor_" + index.toString() + "_" + lbName);
}

export function uidTag(service: Service): string {
  return UID_TAG_PREFIX + service.uid;
}

export function description(clusterName: string, service: Service): string {
  return "Kubernetes external service " + service.namespace + "/" + service.name + " from cluster " + clusterName;
}

export function floatingIPDescription(clusterName: string, service: Service): string {
  return "Floating IP for Kubernetes external service " + service.namespace + "/" + service.name + " from cluster " + clusterName;
}
