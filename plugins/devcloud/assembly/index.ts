// The devcloud provider: InstancesV2, LoadBalancer, Routes, Zones and Clusters against the devcloud REST API
// (devcloud/README.md). Everything it knows comes from the cloud config and the API; the API token is attached by the
// host's HTTP broker. Behaviour and configuration: plugins/devcloud/README.md.
import {
  answerExists,
  answerShutdown,
  answerStatus,
  Capability,
  CloudConfig,
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
  ListClustersRequest,
  ListClustersResponse,
  ListRoutesRequest,
  ListRoutesResponse,
  LoadBalancerStatus,
  Log,
  MasterRequest,
  MasterResponse,
  NodeField,
  PluginError,
  Provider,
  UpdateLoadBalancerRequest,
  UpdateLoadBalancerResponse,
  Zone,
  fields,
  nodeError,
  registerProvider,
} from "@wasm-ccm/plugin-sdk";
import { Api } from "./api";
import * as clusters from "./clusters";
import { Config, parseConfig } from "./config";
import { existsFrom, lookupNode, metadataFrom, shutdownFrom } from "./instances";
import { lookupNodes } from "./instance-batch";
import * as lb from "./loadbalancer";
import * as routes from "./routes";
import { VERSION } from "./version";
import { HANG_IN_LIST_ROUTES, TRAP_IN_GET_LOAD_BALANCER, hang } from "./fault";

export * from "@wasm-ccm/plugin-sdk/exports";

class DevcloudProvider extends Provider {
  private config: Config = new Config();
  private api: Api = new Api("", 0);

  constructor() {
    super("devcloud", VERSION, [
      Capability.instancesV2,
      Capability.loadBalancer,
      Capability.routes,
      Capability.zones,
      Capability.clusters,
    ]);
    // Load balancers and routes are tagged with the cluster name.
    this.hasClusterID = true;
    // Backends are found by provider ID (by name without one) and chosen by the Service's node label selector.
    this.loadBalancerNodeFields = [NodeField.name, NodeField.providerID, NodeField.labels];
  }

  initialize(req: InitializeRequest, out: InitializeResponse): PluginError | null {
    const parsed = parseConfig(req.cloudConfig);
    if (parsed.error !== null) return parsed.error;
    this.config = parsed.config;
    this.api = new Api(this.config.url, this.config.timeoutMs);
    Log.info(
      "devcloud provider initialized",
      fields().set("url", this.config.url).set("region", this.config.region).set("version", VERSION),
    );
    return null;
  }

  instanceExists(req: InstanceExistsRequest, out: InstanceExistsResponse): PluginError | null {
    return existsFrom(lookupNode(this.api, req.node), out);
  }

  instanceShutdown(req: InstanceShutdownRequest, out: InstanceShutdownResponse): PluginError | null {
    return shutdownFrom(lookupNode(this.api, req.node), req.node, out);
  }

  instanceMetadata(req: InstanceMetadataRequest, out: InstanceMetadata): PluginError | null {
    return metadataFrom(lookupNode(this.api, req.node), req.node, this.config.labelPrefix, out);
  }

  // The batched forms look every node up in one or two requests (instance-batch.ts); each node's outcome is what
  // its per-node call would have answered.
  instanceExistsBatch(req: InstanceBatchRequest, out: InstanceExistsBatchResponse): PluginError | null {
    answerExists(lookupNodes(this.api, req.nodes), existsFrom, out);
    return null;
  }

  instanceShutdownBatch(req: InstanceBatchRequest, out: InstanceShutdownBatchResponse): PluginError | null {
    answerShutdown(lookupNodes(this.api, req.nodes), req.nodes, shutdownFrom, out);
    return null;
  }

  // Both of cloud-node-lifecycle's questions from the one lookup: shutdown only for the nodes that exist.
  instanceStatusBatch(req: InstanceBatchRequest, out: InstanceStatusBatchResponse): PluginError | null {
    answerStatus(lookupNodes(this.api, req.nodes), req.nodes, existsFrom, shutdownFrom, out);
    return null;
  }

  instanceMetadataBatch(req: InstanceBatchRequest, out: InstanceMetadataBatchResponse): PluginError | null {
    const found = lookupNodes(this.api, req.nodes);
    for (let i = 0; i < req.nodes.length; i++) {
      const outcome = new InstanceMetadataOutcome();
      const err = metadataFrom(found[i], req.nodes[i], this.config.labelPrefix, outcome.ok);
      if (err !== null) outcome.error = nodeError(err);
      out.results.push(outcome);
    }
    return null;
  }

  getLoadBalancer(req: GetLoadBalancerRequest, out: GetLoadBalancerResponse): PluginError | null {
    if (TRAP_IN_GET_LOAD_BALANCER) unreachable();
    return lb.getLoadBalancer(this.api, req.clusterName, req.service, out);
  }

  getLoadBalancerName(req: GetLoadBalancerNameRequest, out: GetLoadBalancerNameResponse): PluginError | null {
    out.name = lb.nameOf(req.clusterName, req.service);
    return null;
  }

  ensureLoadBalancer(req: EnsureLoadBalancerRequest, out: EnsureLoadBalancerResponse): PluginError | null {
    return lb.ensureLoadBalancer(this.api, req.clusterName, req.service, req.nodes, true, out.status);
  }

  updateLoadBalancer(req: UpdateLoadBalancerRequest, out: UpdateLoadBalancerResponse): PluginError | null {
    return lb.ensureLoadBalancer(this.api, req.clusterName, req.service, req.nodes, false, new LoadBalancerStatus());
  }

  ensureLoadBalancerDeleted(
    req: EnsureLoadBalancerDeletedRequest,
    out: EnsureLoadBalancerDeletedResponse,
  ): PluginError | null {
    return lb.ensureLoadBalancerDeleted(this.api, req.clusterName, req.service);
  }

  listRoutes(req: ListRoutesRequest, out: ListRoutesResponse): PluginError | null {
    if (HANG_IN_LIST_ROUTES) hang();
    const list = routes.listRoutes(this.api, req.clusterName);
    if (list.error !== null) return list.error;
    out.routes = list.routes;
    return null;
  }

  createRoute(req: CreateRouteRequest, out: CreateRouteResponse): PluginError | null {
    return routes.createRoute(this.api, req.clusterName, req.nameHint, req.route);
  }

  deleteRoute(req: DeleteRouteRequest, out: DeleteRouteResponse): PluginError | null {
    return routes.deleteRoute(this.api, req.clusterName, req.route);
  }

  getZone(req: GetZoneRequest, out: Zone): PluginError | null {
    return clusters.getZone(this.config, out);
  }

  getZoneByProviderID(req: GetZoneByProviderIDRequest, out: Zone): PluginError | null {
    return clusters.getZoneByProviderID(this.api, req.providerID, out);
  }

  getZoneByNodeName(req: GetZoneByNodeNameRequest, out: Zone): PluginError | null {
    return clusters.getZoneByNodeName(this.api, req.nodeName, out);
  }

  listClusters(req: ListClustersRequest, out: ListClustersResponse): PluginError | null {
    const list = clusters.listClusters(this.api, CloudConfig.clusterName());
    if (list.error !== null) return list.error;
    out.clusters = list.names;
    return null;
  }

  master(req: MasterRequest, out: MasterResponse): PluginError | null {
    return clusters.master(this.api, req.clusterName, out);
  }
}

registerProvider(new DevcloudProvider());
