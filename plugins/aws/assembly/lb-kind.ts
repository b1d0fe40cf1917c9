// Which kind of load balancer serves a Service, as cloud-provider-aws decides it: the aws-load-balancer-type
// annotation `nlb` makes an NLB (loadbalancer.ts), `external` leaves it to the AWS Load Balancer Controller, and no
// annotation makes a Classic ELB (clb.ts). Two exceptions keep what exists: a Service without the annotation that
// already has an NLB this cluster owns (made by an earlier version of this plugin, or by a Service that had the
// annotation) keeps its NLB rather than getting a second load balancer and a new DNS name; and one whose target
// nodes are another provider's (IP targets) gets an NLB, as a Classic ELB holds EC2 instances only.
import { LoadBalancerStatus, Node, PluginError, Service } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { checkClassic, clbStatus, deleteClassic, ensureClassic, ownsClb } from "./clb";
import { describeClb } from "./clb-api";
import { Config } from "./config";
import * as nlb from "./loadbalancer";
import { TYPE } from "./lb-options";
import { loadBalancerName } from "./names";
import { isForeign } from "./targets";

class Kind {
  classic: bool = false;
  error: PluginError | null = null;
}

function kindOf(aws: Aws, cfg: Config, service: Service, nodes: Node[]): Kind {
  const out = new Kind();
  if (service.annotations.has(TYPE)) return out;
  // Bad input is refused before any request (and whichever kind the Service turns out to have).
  out.error = checkClassic(service);
  if (out.error !== null) return out;
  const classic = describeClb(aws, loadBalancerName(service));
  if (classic.error !== null || classic.lb !== null) {
    out.error = classic.error;
    out.classic = true;
    return out;
  }
  const owned = nlb.findOwned(aws, cfg.clusterID, service);
  if (owned.error !== null || owned.lb !== null) {
    out.error = owned.error;
    return out;
  }
  for (let i = 0; i < nodes.length; i++) if (isForeign(nodes[i].providerID)) return out;
  out.classic = true;
  return out;
}

export class Got {
  exists: bool = false;
  error: PluginError | null = null;
}

export function getLoadBalancer(aws: Aws, cfg: Config, service: Service, status: LoadBalancerStatus): Got {
  const out = new Got();
  if (!service.annotations.has(TYPE)) {
    const classic = describeClb(aws, loadBalancerName(service));
    if (classic.error !== null) {
      out.error = classic.error;
      return out;
    }
    const lb = classic.lb;
    if (lb !== null && ownsClb(lb, cfg.clusterID)) {
      out.exists = true;
      clbStatus(lb, status);
      return out;
    }
  }
  const owned = nlb.findOwned(aws, cfg.clusterID, service);
  out.error = owned.error;
  const found = owned.lb;
  if (found !== null) {
    out.exists = true;
    nlb.statusOf(found, status);
  }
  return out;
}

export function ensureLoadBalancer(aws: Aws, cfg: Config, service: Service, nodes: Node[], mayCreate: bool, status: LoadBalancerStatus): PluginError | null {
  const kind = kindOf(aws, cfg, service, nodes);
  if (kind.error !== null) return kind.error;
  if (kind.classic) return ensureClassic(aws, cfg, service, nodes, mayCreate, status);
  return nlb.ensureLoadBalancer(aws, cfg, service, nodes, mayCreate, status);
}

/** Both kinds go: the annotation may have changed since the load balancer was made. */
export function ensureLoadBalancerDeleted(aws: Aws, cfg: Config, service: Service): PluginError | null {
  const error = deleteClassic(aws, cfg, service);
  if (error !== null) return error;
  return nlb.ensureLoadBalancerDeleted(aws, cfg, service);
}
