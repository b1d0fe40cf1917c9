// The OpenStack provider: InstancesV2 and Zones on Nova (and Neutron's ports for addresses), LoadBalancer on Octavia,
// Routes on a Neutron router's extra routes, following openstack-cloud-controller-manager (OCCM) v1.36. The host logs
// in to Keystone, hands the plugin the service catalog (catalog.ts) and attaches the token to its requests; the
// plugin holds no credential. Behaviour and configuration: plugins/openstack/README.md.
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
  fields,
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
  instanceNotFound,
  ListRoutesRequest,
  ListRoutesResponse,
  Log,
  Node,
  nodeError,
  NodeField,
  PluginError,
  Provider,
  registerProvider,
  UpdateLoadBalancerRequest,
  UpdateLoadBalancerResponse,
  Zone,
} from "@wasm-ccm/plugin-sdk";
import { attachedPorts, nodeAddresses, PortsResult } from "./addresses";
import { Api } from "./api";
import { setWaitSteps, startCall } from "./budget";
import { readEndpoints } from "./catalog";
import { Config, parseConfig } from "./config";
import * as lb from "./loadbalancer";
import { loadBalancerName } from "./names";
import * as routes from "./routes";
import { lookupNodes, MetadataParts } from "./server-batch";
import {
  instanceTypeOf,
  lookupNode,
  notFound,
  PROVIDER_NAME,
  providerIDOf,
  sanitizeLabel,
  Server,
  ServerLookup,
  serverByName,
  serverByProviderID,
} from "./servers";
import { VERSION } from "./version";

export * from "@wasm-ccm/plugin-sdk/exports";

// Nova's status for a server that is stopped: the only one OCCM reports as shut down.
const SHUTOFF = "SHUTOFF";

class OpenStackProvider extends Provider {
  private config: Config = new Config();
  private api: Api | null = null;

  constructor() {
    super(PROVIDER_NAME, VERSION, [Capability.instancesV2, Capability.loadBalancer, Capability.routes, Capability.zones]);
    this.hasClusterID = true;
    // Members by address, subnets by the first node's server, the node-selector annotation: never uid or annotations.
    this.loadBalancerNodeFields = [NodeField.name, NodeField.providerID, NodeField.labels, NodeField.addresses];
  }

  initialize(req: InitializeRequest, out: InitializeResponse): PluginError | null {
    const parsed = parseConfig(req.cloudConfig);
    if (parsed.error !== null) return parsed.error;
    const endpoints = readEndpoints(parsed.config.lb.enabled);
    if (endpoints.error !== null) return endpoints.error;
    this.config = parsed.config;
    setWaitSteps(this.config.waitSteps);
    if (this.config.region == "") this.config.region = endpoints.endpoints.region;
    this.api = new Api(endpoints.endpoints, this.config.requestTimeoutMs);
    const where = fields().set("region", this.config.region).set("compute", endpoints.endpoints.compute);
    Log.info("openstack provider initialized", where.set("cluster", CloudConfig.clusterName()));
    return null;
  }

  private get os(): Api {
    return this.api!;
  }

  instanceExists(req: InstanceExistsRequest, out: InstanceExistsResponse): PluginError | null {
    return existsFrom(lookupNode(this.os, req.node, this.config.region), out);
  }

  instanceShutdown(req: InstanceShutdownRequest, out: InstanceShutdownResponse): PluginError | null {
    return shutdownFrom(lookupNode(this.os, req.node, this.config.region), req.node, out);
  }

  instanceMetadata(req: InstanceMetadataRequest, out: InstanceMetadata): PluginError | null {
    const found = lookupNode(this.os, req.node, this.config.region);
    if (found.error !== null) return found.error;
    const server = found.server;
    if (server === null) return notFound(req.node);
    const type = instanceTypeOf(this.os, server);
    if (type.error !== null) return type.error;
    return this.metadataOf(server, type.value, attachedPorts(this.os, server.id), out);
  }

  // The batched forms find every node's server in a request or two (server-batch.ts); each node's outcome is what
  // its per-node call would have answered.
  instanceExistsBatch(req: InstanceBatchRequest, out: InstanceExistsBatchResponse): PluginError | null {
    answerExists(lookupNodes(this.os, req.nodes, this.config.region), existsFrom, out);
    return null;
  }

  instanceShutdownBatch(req: InstanceBatchRequest, out: InstanceShutdownBatchResponse): PluginError | null {
    answerShutdown(lookupNodes(this.os, req.nodes, this.config.region), req.nodes, shutdownFrom, out);
    return null;
  }

  // Both of cloud-node-lifecycle's questions from the one lookup: shutdown only for the nodes that exist.
  instanceStatusBatch(req: InstanceBatchRequest, out: InstanceStatusBatchResponse): PluginError | null {
    answerStatus(lookupNodes(this.os, req.nodes, this.config.region), req.nodes, existsFrom, shutdownFrom, out);
    return null;
  }

  instanceMetadataBatch(req: InstanceBatchRequest, out: InstanceMetadataBatchResponse): PluginError | null {
    const found = lookupNodes(this.os, req.nodes, this.config.region);
    const parts = new MetadataParts(this.os, found);
    for (let i = 0; i < req.nodes.length; i++) {
      const outcome = new InstanceMetadataOutcome();
      const err = this.batchedMetadata(found[i], req.nodes[i], parts, outcome.ok);
      if (err !== null) outcome.error = nodeError(err);
      out.results.push(outcome);
    }
    return null;
  }

  private batchedMetadata(found: ServerLookup, node: Node, parts: MetadataParts, out: InstanceMetadata): PluginError | null {
    if (found.error !== null) return found.error;
    const server = found.server;
    if (server === null) return notFound(node);
    const type = parts.typeOf(this.os, server);
    if (type.error !== null) return type.error;
    return this.metadataOf(server, type.value, parts.portsOf(server), out);
  }

  private metadataOf(server: Server, type: string, ports: PortsResult, out: InstanceMetadata): PluginError | null {
    if (ports.error !== null) return ports.error;
    out.providerID = providerIDOf(server, this.config.region, this.config.regionalProviderID);
    out.instanceType = type;
    out.nodeAddresses = nodeAddresses(server, ports.ports, this.config);
    out.zone = sanitizeLabel(server.availabilityZone);
    out.region = this.config.region;
    return null;
  }

  getLoadBalancer(req: GetLoadBalancerRequest, out: GetLoadBalancerResponse): PluginError | null {
    startCall();
    const got = lb.getLoadBalancer(this.os, this.config.lb, req.clusterName, req.service, out.status);
    out.exists = got.exists;
    return got.error;
  }

  getLoadBalancerName(req: GetLoadBalancerNameRequest, out: GetLoadBalancerNameResponse): PluginError | null {
    out.name = loadBalancerName(req.clusterName, req.service);
    return null;
  }

  ensureLoadBalancer(req: EnsureLoadBalancerRequest, out: EnsureLoadBalancerResponse): PluginError | null {
    startCall();
    return lb.ensureLoadBalancer(this.os, this.config.lb, req.clusterName, req.service, req.nodes, out.status);
  }

  updateLoadBalancer(req: UpdateLoadBalancerRequest, out: UpdateLoadBalancerResponse): PluginError | null {
    startCall();
    return lb.updateLoadBalancer(this.os, this.config.lb, req.clusterName, req.service, req.nodes);
  }

  ensureLoadBalancerDeleted(
    req: EnsureLoadBalancerDeletedRequest,
    out: EnsureLoadBalancerDeletedResponse,
  ): PluginError | null {
    startCall();
    return lb.ensureLoadBalancerDeleted(this.os, this.config.lb, req.clusterName, req.service);
  }

  listRoutes(req: ListRoutesRequest, out: ListRoutesResponse): PluginError | null {
    const list = routes.listRoutes(this.os, this.config, req.clusterName);
    out.routes = list.routes;
    return list.error;
  }

  createRoute(req: CreateRouteRequest, out: CreateRouteResponse): PluginError | null {
    return routes.createRoute(this.os, this.config, req.clusterName, req.route);
  }

  deleteRoute(req: DeleteRouteRequest, out: DeleteRouteResponse): PluginError | null {
    return routes.deleteRoute(this.os, this.config, req.clusterName, req.route);
  }

  // OCCM has no Zones (it answers from InstancesV2): these answer what instanceMetadata would.
  getZone(req: GetZoneRequest, out: Zone): PluginError | null {
    // Upstream's GetZone is the zone of the machine the CCM runs on, which only its metadata service knows.
    out.region = this.config.region;
    return null;
  }

  getZoneByProviderID(req: GetZoneByProviderIDRequest, out: Zone): PluginError | null {
    return this.zoneOf(serverByProviderID(this.os, req.providerID, this.config.region), req.providerID, out);
  }

  getZoneByNodeName(req: GetZoneByNodeNameRequest, out: Zone): PluginError | null {
    return this.zoneOf(serverByName(this.os, req.nodeName), req.nodeName, out);
  }

  private zoneOf(found: ServerLookup, what: string, out: Zone): PluginError | null {
    if (found.error !== null) return found.error;
    const server: Server | null = found.server;
    if (server === null) return instanceNotFound("no server for " + what);
    out.failureDomain = sanitizeLabel(server.availabilityZone);
    out.region = this.config.region;
    return null;
  }
}

function existsFrom(found: ServerLookup, out: InstanceExistsResponse): PluginError | null {
  if (found.error !== null) return found.error;
  out.exists = found.server !== null;
  return null;
}

function shutdownFrom(found: ServerLookup, node: Node, out: InstanceShutdownResponse): PluginError | null {
  if (found.error !== null) return found.error;
  if (found.server === null) return notFound(node);
  out.shutdown = found.server!.status == SHUTOFF;
  return null;
}

registerProvider(new OpenStackProvider());
