// The vSphere provider: InstancesV2 and Zones on vCenter, following cloud-provider-vsphere v1.36 (the same
// vsphere.conf, providerIDs, node addresses, instance types and tag-based zones). VMs are found and read over vim25
// SOAP at /sdk, zone and region tags over the REST tagging API at /rest; the host logs in to both and attaches the
// sessions, so the plugin holds no credential. No LoadBalancer or Routes: upstream offers them only through NSX-T.
// Behaviour and configuration: plugins/vsphere/README.md.
import {
  Capability,
  fields,
  GetZoneByNodeNameRequest,
  GetZoneByProviderIDRequest,
  GetZoneRequest,
  InitializeRequest,
  InitializeResponse,
  instanceNotFound,
  InstanceExistsRequest,
  InstanceExistsResponse,
  InstanceMetadata,
  InstanceMetadataRequest,
  InstanceShutdownRequest,
  InstanceShutdownResponse,
  internal,
  Log,
  PluginError,
  Provider,
  registerProvider,
  Zone,
} from "@wasm-ccm/plugin-sdk";
import { discoverAddresses } from "./addresses";
import { Config, parseConfig } from "./config";
import { instanceType } from "./instance-type";
import { VERSION } from "./version";
import { Vim } from "./vim";
import { byName, lookupNode, lookupProviderID, notFound, PROVIDER_NAME, Vm, VmLookup } from "./vms";
import { zoneOf } from "./zones";

export * from "@wasm-ccm/plugin-sdk/exports";

const POWERED_ON = "poweredOn";
// Per request: the host's default deadline.
const REQUEST_TIMEOUT_MS = 0;

class VSphereProvider extends Provider {
  private config: Config = new Config();
  private vims: Vim[] = [];

  constructor() {
    super(PROVIDER_NAME, VERSION, [Capability.instancesV2, Capability.zones]);
    this.hasClusterID = true;
  }

  initialize(req: InitializeRequest, out: InitializeResponse): PluginError | null {
    const parsed = parseConfig(req.cloudConfig);
    if (parsed.error !== null) return parsed.error;
    this.config = parsed.config;
    this.vims = [];
    const servers: string[] = [];
    for (let i = 0; i < this.config.vcenters.length; i++) {
      this.vims.push(new Vim(this.config.vcenters[i].url, REQUEST_TIMEOUT_MS));
      servers.push(this.config.vcenters[i].url);
    }
    for (let i = 0; i < this.config.notes.length; i++) Log.info("vsphere.conf: " + this.config.notes[i], null);
    const where = fields().set("vcenters", servers.join(",")).set("format", this.config.format);
    Log.info("vsphere provider initialized", where.set("zoneCategory", this.config.zoneCategory));
    return null;
  }

  instanceExists(req: InstanceExistsRequest, out: InstanceExistsResponse): PluginError | null {
    const found = lookupNode(this.vims, this.config, req.node);
    if (found.error !== null) return found.error;
    out.exists = found.vm !== null;
    return null;
  }

  instanceShutdown(req: InstanceShutdownRequest, out: InstanceShutdownResponse): PluginError | null {
    const found = lookupNode(this.vims, this.config, req.node);
    if (found.error !== null) return found.error;
    if (found.vm === null) return notFound(req.node);
    out.shutdown = found.vm!.powerState != POWERED_ON;
    return null;
  }

  instanceMetadata(req: InstanceMetadataRequest, out: InstanceMetadata): PluginError | null {
    const found = lookupNode(this.vims, this.config, req.node);
    if (found.error !== null) return found.error;
    const vm = found.vm;
    if (vm === null) return notFound(req.node);
    const addresses = discoverAddresses(vm.hostName, vm.nics, vm.vcenter.ipFamilies, this.config.nodes);
    // A running VM whose guest reports no usable address fails, as upstream's DiscoverNode does (VMware Tools may
    // not have reported yet); a stopped one keeps what it reported last, which may be nothing.
    if (addresses.error != "" && vm.powerState == POWERED_ON) {
      return internal("VM " + vm.uuid + " (node " + req.node.name + "): " + addresses.error);
    }
    const zone = zoneOf(vm, this.config, REQUEST_TIMEOUT_MS);
    if (zone.error !== null) return zone.error;
    out.providerID = vm.providerID;
    out.instanceType = instanceType(vm.numCpu, vm.memoryMB, vm.guestId);
    out.nodeAddresses = addresses.addresses;
    out.zone = zone.zone;
    out.region = zone.region;
    return null;
  }

  // Upstream's GetZone is the zone of the machine the CCM runs on (its own host name as a node), which a plugin
  // cannot know: no zone.
  getZone(req: GetZoneRequest, out: Zone): PluginError | null {
    return null;
  }

  getZoneByProviderID(req: GetZoneByProviderIDRequest, out: Zone): PluginError | null {
    return this.zoneFor(lookupProviderID(this.vims, this.config, req.providerID), req.providerID, out);
  }

  getZoneByNodeName(req: GetZoneByNodeNameRequest, out: Zone): PluginError | null {
    return this.zoneFor(byName(this.vims, this.config, req.nodeName), req.nodeName, out);
  }

  private zoneFor(found: VmLookup, what: string, out: Zone): PluginError | null {
    if (found.error !== null) return found.error;
    const vm: Vm | null = found.vm;
    if (vm === null) return instanceNotFound("no VM for " + what);
    const zone = zoneOf(vm, this.config, REQUEST_TIMEOUT_MS);
    if (zone.error !== null) return zone.error;
    out.failureDomain = zone.zone;
    out.region = zone.region;
    return null;
  }
}

registerProvider(new VSphereProvider());
