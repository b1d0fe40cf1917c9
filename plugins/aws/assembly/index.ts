// The AWS provider: InstancesV2, LoadBalancer (Classic ELB, or NLB through ELBv2), Routes and Zones against EC2 and ELBv2's Query
// APIs, following cloud-provider-aws's observable behaviour. The plugin holds no key: the host's broker signs its
// requests (SigV4) for the hosts of an AWS credentials entry. Behaviour and configuration: plugins/aws/README.md.
import {
  answerExists,
  answerShutdown,
  answerStatus,
  Capability,
  CreateRouteRequest,
  CreateRouteResponse,
  DeleteRouteRequest,
  DeleteRouteResponse,
  EnsureLoadBalancerDeletedRequest,
  EnsureLoadBalancerDeletedResponse,
  EnsureLoadBalancerRequest,
  EnsureLoadBalancerResponse,
  GetLoadBalancerNameRequest,
  GetLoadBalancerNameResponse,
  GetLoadBalancerRequest,
  GetLoadBalancerResponse,
  GetZoneByNodeNameRequest,
  GetZoneByProviderIDRequest,
  GetZoneRequest,
  InitializeRequest,
  InitializeResponse,
  InstanceBatchRequest,
  InstanceExistsBatchResponse,
  InstanceExistsRequest,
  InstanceExistsResponse,
  InstanceMetadata,
  InstanceMetadataBatchResponse,
  InstanceMetadataOutcome,
  InstanceMetadataRequest,
  InstanceShutdownBatchResponse,
  InstanceShutdownRequest,
  InstanceShutdownResponse,
  InstanceStatusBatchResponse,
  ListRoutesRequest,
  ListRoutesResponse,
  LoadBalancerStatus,
  Log,
  Node,
  NodeField,
  PluginConfig,
  PluginError,
  Provider,
  UpdateLoadBalancerRequest,
  UpdateLoadBalancerResponse,
  Zone,
  fields,
  nodeError,
  registerProvider,
} from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { Config, parseConfig } from "./config";
import { lookupNodes } from "./instance-batch";
import { Lookup, lookupNode, notFound } from "./instances";
import * as lbKind from "./lb-kind";
import { loadBalancerName } from "./names";
import * as routes from "./routes";
import { VERSION } from "./version";
import * as zones from "./zones";

export * from "@wasm-ccm/plugin-sdk/exports";

class AwsProvider extends Provider {
  private config: Config = new Config();
  /** [Global] KubernetesClusterID; "" to tag with each call's cluster name. */
  private fixedClusterID: string = "";
  private aws: Aws = new Aws("", "");

  constructor() {
    super("aws", VERSION, [Capability.instancesV2, Capability.loadBalancer, Capability.routes, Capability.zones]);
    this.hasClusterID = true;
    // Instances by provider ID, IP targets by InternalIP, the target-node-labels annotation: never uid or annotations.
    this.loadBalancerNodeFields = [NodeField.name, NodeField.providerID, NodeField.labels, NodeField.addresses];
  }

  initialize(req: InitializeRequest, out: InitializeResponse): PluginError | null {
    const region = PluginConfig.get("aws.region");
    const zone = PluginConfig.get("aws.zone");
    const parsed = parseConfig(req.cloudConfig, "", region !== null ? region : "", zone !== null ? zone : "");
    if (parsed.error !== null) return parsed.error;
    this.config = parsed.config;
    for (let i = 0; i < parsed.warnings.length; i++) Log.warn(parsed.warnings[i]);
    this.fixedClusterID = this.config.clusterID;
    this.aws = new Aws(this.config.ec2Url, this.config.elbUrl);
    Log.info(
      "aws provider initialized",
      fields().set("region", this.config.region).set("vpc", this.config.vpc).set("ec2", this.config.ec2Url),
    );
    return null;
  }

  /** The config with the cluster ID tags are read and written with for this call. */
  private forCluster(clusterName: string): Config {
    this.config.clusterID = this.fixedClusterID != "" ? this.fixedClusterID : clusterName;
    return this.config;
  }

  instanceExists(req: InstanceExistsRequest, out: InstanceExistsResponse): PluginError | null {
    return existsFrom(lookupNode(this.aws, req.node), out);
  }

  instanceShutdown(req: InstanceShutdownRequest, out: InstanceShutdownResponse): PluginError | null {
    return shutdownFrom(lookupNode(this.aws, req.node), req.node, out);
  }

  instanceMetadata(req: InstanceMetadataRequest, out: InstanceMetadata): PluginError | null {
    return this.metadataFrom(lookupNode(this.aws, req.node), req.node, out);
  }

  // The batched forms look every node up in one DescribeInstances per 200 IDs or names (instance-batch.ts); each
  // node's outcome is what its per-node call would have answered.
  instanceExistsBatch(req: InstanceBatchRequest, out: InstanceExistsBatchResponse): PluginError | null {
    answerExists(lookupNodes(this.aws, req.nodes), existsFrom, out);
    return null;
  }

  instanceShutdownBatch(req: InstanceBatchRequest, out: InstanceShutdownBatchResponse): PluginError | null {
    answerShutdown(lookupNodes(this.aws, req.nodes), req.nodes, shutdownFrom, out);
    return null;
  }

  // Both of cloud-node-lifecycle's questions from the one listing: shutdown only for the nodes that exist.
  instanceStatusBatch(req: InstanceBatchRequest, out: InstanceStatusBatchResponse): PluginError | null {
    answerStatus(lookupNodes(this.aws, req.nodes), req.nodes, existsFrom, shutdownFrom, out);
    return null;
  }

  instanceMetadataBatch(req: InstanceBatchRequest, out: InstanceMetadataBatchResponse): PluginError | null {
    const found = lookupNodes(this.aws, req.nodes);
    for (let i = 0; i < req.nodes.length; i++) {
      const outcome = new InstanceMetadataOutcome();
      const err = this.metadataFrom(found[i], req.nodes[i], outcome.ok);
      if (err !== null) outcome.error = nodeError(err);
      out.results.push(outcome);
    }
    return null;
  }

  private metadataFrom(found: Lookup, node: Node, out: InstanceMetadata): PluginError | null {
    if (found.error !== null) return found.error;
    const inst = found.instance;
    if (inst === null) return notFound(node);
    out.providerID = inst.providerID;
    out.instanceType = inst.type;
    out.zone = inst.zone;
    out.region = this.config.region;
    out.nodeAddresses = inst.addresses();
    // As upstream: a Node that has the zone ID label keeps it, and no call is made for it.
    if (!node.labels.has(zones.LABEL_ZONE_ID)) {
      const zoneId = zones.zoneIdOf(this.aws, inst.zone);
      if (zoneId.error !== null) return zoneId.error;
      out.additionalLabels.set(zones.LABEL_ZONE_ID, zoneId.zoneId);
    }
    return null;
  }

  getLoadBalancer(req: GetLoadBalancerRequest, out: GetLoadBalancerResponse): PluginError | null {
    const got = lbKind.getLoadBalancer(this.aws, this.forCluster(req.clusterName), req.service, out.status);
    out.exists = got.exists;
    return got.error;
  }

  getLoadBalancerName(req: GetLoadBalancerNameRequest, out: GetLoadBalancerNameResponse): PluginError | null {
    out.name = loadBalancerName(req.service);
    return null;
  }

  ensureLoadBalancer(req: EnsureLoadBalancerRequest, out: EnsureLoadBalancerResponse): PluginError | null {
    return lbKind.ensureLoadBalancer(this.aws, this.forCluster(req.clusterName), req.service, req.nodes, true, out.status);
  }

  updateLoadBalancer(req: UpdateLoadBalancerRequest, out: UpdateLoadBalancerResponse): PluginError | null {
    const cfg = this.forCluster(req.clusterName);
    return lbKind.ensureLoadBalancer(this.aws, cfg, req.service, req.nodes, false, new LoadBalancerStatus());
  }

  ensureLoadBalancerDeleted(
    req: EnsureLoadBalancerDeletedRequest,
    out: EnsureLoadBalancerDeletedResponse,
  ): PluginError | null {
    return lbKind.ensureLoadBalancerDeleted(this.aws, this.forCluster(req.clusterName), req.service);
  }

  listRoutes(req: ListRoutesRequest, out: ListRoutesResponse): PluginError | null {
    const list = routes.listRoutes(this.aws, this.forCluster(req.clusterName));
    if (list.error !== null) return list.error;
    out.routes = list.routes;
    return null;
  }

  createRoute(req: CreateRouteRequest, out: CreateRouteResponse): PluginError | null {
    return routes.createRoute(this.aws, this.forCluster(req.clusterName), req.route);
  }

  deleteRoute(req: DeleteRouteRequest, out: DeleteRouteResponse): PluginError | null {
    return routes.deleteRoute(this.aws, this.forCluster(req.clusterName), req.route);
  }

  getZone(req: GetZoneRequest, out: Zone): PluginError | null {
    return zones.getZone(this.config, out);
  }

  getZoneByProviderID(req: GetZoneByProviderIDRequest, out: Zone): PluginError | null {
    return zones.getZoneByProviderID(this.aws, this.config, req.providerID, out);
  }

  getZoneByNodeName(req: GetZoneByNodeNameRequest, out: Zone): PluginError | null {
    return zones.getZoneByNodeName(this.aws, this.config, req.nodeName, out);
  }
}

function existsFrom(found: Lookup, out: InstanceExistsResponse): PluginError | null {
  if (found.error !== null) return found.error;
  out.exists = found.instance !== null;
  return null;
}

function shutdownFrom(found: Lookup, node: Node, out: InstanceShutdownResponse): PluginError | null {
  if (found.error !== null) return found.error;
  const inst = found.instance;
  if (inst === null) return notFound(node);
  out.shutdown = inst.state == "stopped";
  return null;
}

registerProvider(new AwsProvider());
